#include "tuner/server/http_server.h"

#include <spdlog/spdlog.h>

#include <boost/asio/strand.hpp>

namespace tuner::server {

namespace net = boost::asio;
using tcp = net::ip::tcp;

namespace {

// Answers 503 without waiting: the few bytes fit in a fresh socket's send
// buffer, and a client that does not read them loses nothing.
void RefuseBusy(tcp::socket& socket) {
  static const char kBusy[] =
      "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
      "Connection: close\r\nContent-Length: 44\r\n\r\n"
      "{\"error\":\"too many connections; try again\"}\n";
  boost::system::error_code ec;
  socket.non_blocking(true, ec);
  socket.write_some(net::buffer(kBusy, sizeof kBusy - 1), ec);
  socket.shutdown(tcp::socket::shutdown_both, ec);
  socket.close(ec);
}

}  // namespace

HttpServer::HttpServer(net::io_context& io, const Api& api, EventBus& bus,
                       HttpLimits limits)
    : io_(io),
      shared_(std::make_shared<Shared>(api, bus, limits)),
      acceptor_(net::make_strand(io)) {}

HttpServer::~HttpServer() { Stop(); }

core::Status HttpServer::Listen(const std::string& address, uint16_t port) {
  boost::system::error_code ec;
  auto ip = net::ip::make_address(address, ec);
  if (ec) return core::InvalidArgument("bad address '" + address + "'");
  tcp::endpoint endpoint(ip, port);
  acceptor_.open(endpoint.protocol(), ec);
  if (!ec) acceptor_.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) acceptor_.bind(endpoint, ec);
  if (!ec) acceptor_.listen(net::socket_base::max_listen_connections, ec);
  if (ec) {
    return core::IoError("cannot listen on " + address + ":" +
                         std::to_string(port) + ": " + ec.message());
  }
  port_ = acceptor_.local_endpoint().port();
  Accept();
  return core::Status::Ok();
}

void HttpServer::Stop() {
  boost::system::error_code ec;
  if (acceptor_.is_open()) acceptor_.close(ec);
}

void HttpServer::Accept() {
  acceptor_.async_accept(
      net::make_strand(io_),
      [this, shared = shared_](boost::system::error_code ec,
                               tcp::socket socket) {
        if (ec == net::error::operation_aborted) return;
        if (!ec) {
          if (shared->connections.load() >= shared->limits.max_connections) {
            spdlog::warn("too many connections; refusing a new one");
            RefuseBusy(socket);
          } else {
            ServeConnection(std::move(socket), shared);
          }
        }
        if (acceptor_.is_open()) Accept();
      });
}

}  // namespace tuner::server
