#include "tuner/server/http_client.h"

#include <algorithm>
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <optional>
#include <utility>  // before Asio: Boost 1.74 with GCC 12 needs it

namespace tuner::server {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;

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
  const std::string scheme = "http://";
  if (url.compare(0, scheme.size(), scheme) != 0) {
    return core::InvalidArgument("--server: expected http://HOST:PORT, got '" +
                                 url + "'");
  }
  std::string rest = url.substr(scheme.size());
  rest = rest.substr(0, rest.find('/'));
  size_t colon = rest.rfind(':');
  auto impl = std::make_unique<Impl>();
  if (colon == std::string::npos || rest.back() == ']') {
    impl->host = rest;
    impl->port = "80";
  } else {
    impl->host = rest.substr(0, colon);
    impl->port = rest.substr(colon + 1);
  }
  const std::string& port = impl->port;
  bool digits = !port.empty() && port.size() <= 5 &&
                std::all_of(port.begin(), port.end(),
                            [](char c) { return c >= '0' && c <= '9'; });
  if (impl->host.empty() || !digits || std::stoi(port) < 1 ||
      std::stoi(port) > 65535) {
    return core::InvalidArgument(
        "--server: expected http://HOST:PORT with a port from 1 to 65535, "
        "got '" +
        url + "'");
  }
  impl->authority = impl->host + ":" + port;
  if (impl->host.size() > 2 && impl->host.front() == '[') {
    impl->host = impl->host.substr(1, impl->host.size() - 2);
  }
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
