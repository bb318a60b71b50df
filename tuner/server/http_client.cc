#include "tuner/server/http_client.h"

#include <algorithm>
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <cctype>
#include <optional>
#include <utility>  // before Asio: Boost 1.74 with GCC 12 needs it

namespace tuner::server {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;

namespace {

// A name, or an IPv4 address in its dotted decimal form only: a host whose
// last label is a number ("127.1", "2130706433", "0", "0x7f.0.0.1") is read
// by resolvers as an address in some other form, so it must be a proper one.
bool IsHostName(const std::string& host) {
  if (host.empty() || host.size() > 253 || host.front() == '.' ||
      host.front() == '-' || host.find("..") != std::string::npos) {
    return false;
  }
  bool characters = std::all_of(host.begin(), host.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.';
  });
  std::string last = host.substr(host.rfind('.') + 1);
  bool numeric = !last.empty() &&
                 (std::all_of(last.begin(), last.end(),
                              [](char c) { return c >= '0' && c <= '9'; }) ||
                  last.rfind("0x", 0) == 0 || last.rfind("0X", 0) == 0);
  if (!characters || !numeric) return characters;
  boost::system::error_code ec;
  net::ip::make_address_v4(host, ec);
  return !ec;
}

bool IsPort(const std::string& port, bool any_port) {
  if (any_port && port == "0") return true;
  return !port.empty() && port.size() <= 5 && port.front() != '0' &&
         std::all_of(port.begin(), port.end(),
                     [](char c) { return c >= '0' && c <= '9'; }) &&
         std::stoi(port) <= 65535;
}

// Reads HOST:PORT into `out` (see ParseHostPort); why it cannot, or "".
std::string ReadHostPort(const std::string& text,
                         const std::string& default_port, bool any_port,
                         HostPort& out) {
  std::string port_part;
  if (!text.empty() && text.front() == '[') {
    size_t close = text.find(']');
    if (close == std::string::npos) return "an IPv6 address lacks its ]";
    out.host = text.substr(1, close - 1);
    boost::system::error_code ec;
    net::ip::make_address_v6(out.host, ec);
    if (ec) return "'" + out.host + "' is not an IPv6 address";
    port_part = text.substr(close + 1);
  } else {
    size_t colon = text.find(':');
    out.host = text.substr(0, colon);
    if (colon != std::string::npos) port_part = text.substr(colon);
    if (out.host.size() > 1 && out.host.back() == '.')
      out.host.pop_back();  // a fully qualified name: the same host
    if (!IsHostName(out.host)) {
      return "expected HOST:PORT with HOST a name, an IPv4 address or a "
             "bracketed IPv6 address ([::1])";
    }
  }
  std::string range = any_port ? "0 to 65535" : "1 to 65535";
  if (port_part.empty() && default_port.empty())
    return "expected HOST:PORT with a port from " + range;
  out.port = default_port;
  if (!port_part.empty()) {
    if (port_part.front() != ':' || !IsPort(port_part.substr(1), any_port))
      return "expected a port from " + range + " after HOST:";
    out.port = port_part.substr(1);
  }
  bool v6 = out.host.find(':') != std::string::npos;
  out.authority = (v6 ? "[" + out.host + "]" : out.host) + ":" + out.port;
  return "";
}

}  // namespace

core::Result<HostPort> ParseHostPort(const std::string& text,
                                     const std::string& default_port,
                                     bool any_port) {
  HostPort parsed;
  std::string why = text.find("://") != std::string::npos
                        ? "expected HOST:PORT, not a URL"
                        : ReadHostPort(text, default_port, any_port, parsed);
  if (!why.empty()) return core::InvalidArgument(why + ", got '" + text + "'");
  return parsed;
}

core::Result<HostPort> ParseServerUrl(const std::string& url) {
  const std::string scheme = "http://";
  std::string rest = url.compare(0, scheme.size(), scheme) == 0
                         ? url.substr(scheme.size())
                         : "";
  if (!rest.empty() && rest.back() == '/') rest.pop_back();
  std::string why = "expected http://HOST:PORT";
  if (url.rfind("https://", 0) == 0) {
    why = "https is not served: tuner serve speaks http (tunnel it over SSH)";
  } else if (rest.find('@') != std::string::npos) {
    why =
        "expected http://HOST:PORT without user info (the token is read "
        "from --token-file, $TUNER_TOKEN or <db>.token)";
  } else if (rest.find_first_of("/?#") != std::string::npos) {
    why = "expected http://HOST:PORT without a path or a query";
  }
  HostPort parsed;
  if (!rest.empty() && rest.find_first_of("/?#@") == std::string::npos)
    why = ReadHostPort(rest, "80", false, parsed);
  if (!why.empty()) return core::InvalidArgument(why + ", got '" + url + "'");
  return parsed;
}

struct HttpClient::Impl {
  net::io_context io;
  std::string host;  // an IPv6 literal without its brackets
  std::string port;
  std::string authority;  // HOST:PORT as written: "[::1]:8080"
  std::string token;
  std::unique_ptr<beast::tcp_stream> stream;
  beast::flat_buffer buffer;
  std::optional<tcp::endpoint> reached;  // the first connection's peer
  PeerAddress peer;

  // Connects to where the first connection went, or else to the first of
  // HOST's addresses that answers.
  core::Status Open() {
    beast::error_code ec;
    stream = std::make_unique<beast::tcp_stream>(io);
    stream->expires_after(std::chrono::seconds(10));
    if (reached) {
      stream->connect(*reached, ec);
    } else {
      tcp::resolver resolver(io);
      auto endpoints = resolver.resolve(host, port, ec);
      if (ec) {
        stream.reset();
        return core::IoError("cannot resolve http://" + authority + ": " +
                             ec.message());
      }
      stream->connect(endpoints, ec);
    }
    if (ec) {
      stream.reset();
      return core::Error{
          core::ErrorCode::kUnavailable,
          "cannot connect to http://" + authority + ": " + ec.message()};
    }
    if (!reached) Reached(stream->socket().remote_endpoint(ec));
    return core::Status::Ok();
  }

  void Reached(const tcp::endpoint& endpoint) {
    reached = endpoint;
    peer.address = endpoint.address().to_string();
    peer.port = endpoint.port();
    peer.this_machine = IsThisMachine(endpoint.address());
  }

  // Loopback, or an address a socket here can bind: one of this machine's.
  bool IsThisMachine(const net::ip::address& address) {
    if (address.is_loopback()) return true;
    tcp::socket probe(io);
    beast::error_code ec;
    probe.open(address.is_v4() ? tcp::v4() : tcp::v6(), ec);
    if (!ec) probe.bind(tcp::endpoint(address, 0), ec);
    return !ec;
  }

  // One exchange; Beast's blocking calls honour the stream's deadline
  // only for async operations, so they run on `io` with run_for.
  core::Result<ClientResponse> Exchange(const std::string& method,
                                        const std::string& target,
                                        const std::string& body,
                                        std::chrono::milliseconds timeout) {
    http::request<http::string_body> req(http::string_to_verb(method), target,
                                         11);
    req.set(http::field::host, authority);
    req.set(http::field::user_agent, "tuner");
    if (!token.empty()) req.set(http::field::authorization, "Bearer " + token);
    // The service refuses mutations in any type a web form could send.
    if (method != "GET" && method != "HEAD") {
      req.set(http::field::content_type,
              body.empty() ? "application/json" : "application/yaml");
    }
    req.body() = body;
    req.keep_alive(true);
    req.prepare_payload();
    http::response_parser<http::string_body> parser;
    parser.body_limit(256 * 1024 * 1024);
    beast::error_code ec;
    stream->expires_after(timeout);
    http::async_write(*stream, req, [&](beast::error_code e, size_t) {
      ec = e;
      if (!ec) {
        http::async_read(*stream, buffer, parser,
                         [&](beast::error_code e2, size_t) { ec = e2; });
      }
    });
    io.restart();
    io.run();
    if (ec) return core::IoError(ec.message());
    auto& res = parser.get();
    ClientResponse out;
    out.status = static_cast<int>(res.result_int());
    out.reason = std::string(res.reason());
    if (out.reason.empty())
      out.reason = std::string(http::obsolete_reason(res.result()));
    out.content_type = std::string(res[http::field::content_type]);
    out.location = std::string(res[http::field::location]);
    out.body = std::move(res.body());
    if (!res.keep_alive()) stream.reset();
    return out;
  }
};

HttpClient::HttpClient(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HttpClient::~HttpClient() = default;

const PeerAddress& HttpClient::peer() const { return impl_->peer; }

const std::string& HttpClient::authority() const { return impl_->authority; }

void HttpClient::SetToken(std::string token) {
  impl_->token = std::move(token);
}

core::Result<std::unique_ptr<HttpClient>> HttpClient::Connect(
    const std::string& url, std::string token) {
  auto parsed = ParseServerUrl(url);
  if (!parsed.ok())
    return core::InvalidArgument("--server: " + parsed.error().message);
  auto impl = std::make_unique<Impl>();
  impl->host = parsed.value().host;
  impl->port = parsed.value().port;
  impl->authority = parsed.value().authority;
  impl->token = std::move(token);
  TUNER_RETURN_IF_ERROR(impl->Open());
  return std::unique_ptr<HttpClient>(new HttpClient(std::move(impl)));
}

core::Result<ClientResponse> HttpClient::Call(
    const std::string& method, const std::string& target,
    const std::string& body, std::chrono::milliseconds timeout) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (!impl_->stream) TUNER_RETURN_IF_ERROR(impl_->Open());
    auto response = impl_->Exchange(method, target, body, timeout);
    if (response.ok() || attempt == 1 || method != "GET") return response;
    impl_->stream.reset();  // the server closed a kept-alive connection
    impl_->buffer.clear();
  }
  return core::IoError("unreachable");
}

std::string UrlEncode(const std::string& text) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' ||
        c == '/') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

}  // namespace tuner::server
