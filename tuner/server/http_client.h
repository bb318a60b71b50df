// A blocking HTTP/1.1 client (Beast) for the CLI's --server verbs, the
// tests and the load benchmark.
#ifndef TUNER_TUNER_SERVER_HTTP_CLIENT_H_
#define TUNER_TUNER_SERVER_HTTP_CLIENT_H_

#include <chrono>
#include <memory>
#include <string>

#include "core/result.h"

namespace tuner::server {

struct ClientResponse {
  int status = 0;
  std::string content_type;
  std::string body;
};

// One keep-alive connection to http://HOST:PORT; reconnects when the server
// closed it. Not thread-safe: one per thread.
class HttpClient {
 public:
  // `url`: http://HOST:PORT (a trailing path is ignored). `token`, when not
  // empty, is sent as Authorization: Bearer.
  static core::Result<std::unique_ptr<HttpClient>> Connect(
      const std::string& url, std::string token = "");
  ~HttpClient();

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
