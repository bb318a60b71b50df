// A blocking HTTP/1.1 client (Beast) for the CLI's --server verbs, the
// tests and the load benchmark.
#ifndef TUNER_TUNER_SERVER_HTTP_CLIENT_H_
#define TUNER_TUNER_SERVER_HTTP_CLIENT_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "core/result.h"

namespace tuner::server {

struct ClientResponse {
  int status = 0;
  std::string reason;  // the status line's reason phrase, or the standard one
  std::string content_type;
  std::string location;  // of a redirect: the client follows none
  std::string body;
};

// The server a client reached: the address its connection went to.
struct PeerAddress {
  std::string address;  // an IP literal, as Asio writes it
  uint16_t port = 0;
  bool this_machine = false;  // loopback, or an address of this machine
};

// A server's address as --server and --listen write it.
struct HostPort {
  std::string host;       // a name, an IPv4 address, or an IPv6 address
                          // without its brackets
  std::string port;       // 0 to 65535, in decimal
  std::string authority;  // HOST:PORT as URLs write it: "[::1]:8080"
};

// HOST:PORT: HOST a name (letters, digits, '-' and '.'; one final '.' is
// dropped), an IPv4 address or a bracketed IPv6 address; PORT decimal
// without leading zeros, from 1 (0 too where `any_port`: "any free one")
// to 65535, or `default_port` when ":PORT" is left out ("": required).
// Anything else is an error that says what is wrong and quotes `text`.
core::Result<HostPort> ParseHostPort(const std::string& text,
                                     const std::string& default_port,
                                     bool any_port = false);

// http://HOST[:PORT][/] (PORT 80 when left out); a path, a query or user
// info is an error.
core::Result<HostPort> ParseServerUrl(const std::string& url);

// One keep-alive connection to http://HOST:PORT; reconnects when the server
// closed it, to the address it reached first (HOST is resolved once, so
// the server cannot change under a token). Not thread-safe: one per thread.
class HttpClient {
 public:
  // `url`: as ParseServerUrl takes it. `token`, when not empty, is sent as
  // Authorization: Bearer.
  static core::Result<std::unique_ptr<HttpClient>> Connect(
      const std::string& url, std::string token = "");
  ~HttpClient();

  // Where the connection went, to decide whether a token may go there.
  const PeerAddress& peer() const;
  // HOST:PORT as the URL wrote them ("[::1]:8080"): what messages name.
  const std::string& authority() const;
  // The token the next calls send ("": none).
  void SetToken(std::string token);

  core::Result<ClientResponse> Call(
      const std::string& method, const std::string& target,
      const std::string& body = "",
      std::chrono::milliseconds timeout = std::chrono::seconds(60));

 private:
  struct Impl;
  explicit HttpClient(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Percent-encodes a query value.
std::string UrlEncode(const std::string& text);

}  // namespace tuner::server

#endif  // TUNER_TUNER_SERVER_HTTP_CLIENT_H_
