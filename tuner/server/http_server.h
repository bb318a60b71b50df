// HttpServer: the service's HTTP/1.1 front (Boost.Beast) over an Api.
#ifndef TUNER_TUNER_SERVER_HTTP_SERVER_H_
#define TUNER_TUNER_SERVER_HTTP_SERVER_H_

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>  // before Asio: Boost 1.74 with GCC 12 needs it

#include "core/result.h"
#include "tuner/server/api.h"
#include "tuner/server/event_bus.h"

namespace tuner::server {

// Limits that keep one client from hurting the others.
struct HttpLimits {
  size_t header_bytes = 8 * 1024;          // larger: 431
  size_t body_bytes = 1024 * 1024;         // larger: 413
  std::chrono::seconds read_timeout{15};   // a request, from its first byte
  std::chrono::seconds write_timeout{30};  // a response, or an event batch
  std::chrono::seconds idle_timeout{60};   // keep-alive between requests
  // More: answered 503 at once and closed. Idle and slow connections expire
  // (the timeouts above), so they cannot hold it for long.
  int max_connections = 2048;
  int events_per_client = 8;  // GET /api/events per client address: 429
};

// Accepts connections and serves each on its own strand of `io` (run it
// on as many threads as wanted). GET /api/events streams the EventBus as
// server-sent events. Stop() closes the listener; open connections end
// when `io` stops.
class HttpServer {
 public:
  HttpServer(boost::asio::io_context& io, const Api& api, EventBus& bus,
             HttpLimits limits = {});
  ~HttpServer();

  // Binds `address:port` (port 0: any free one) and starts accepting.
  core::Status Listen(const std::string& address, uint16_t port);
  uint16_t port() const { return port_; }
  void Stop();

  // Shared with the sessions (http_session.cc).
  struct Shared {
    Shared(const Api& a, EventBus& b, HttpLimits l)
        : api(a), bus(b), limits(l) {}
    const Api& api;
    EventBus& bus;
    HttpLimits limits;
    std::atomic<int> connections{0};
    std::mutex streams_mutex;
    std::map<std::string, int> streams;  // open event streams by address
  };

 private:
  void Accept();

  boost::asio::io_context& io_;
  std::shared_ptr<Shared> shared_;
  boost::asio::ip::tcp::acceptor acceptor_;
  uint16_t port_ = 0;
};

// Starts serving one accepted connection (http_session.cc).
void ServeConnection(boost::asio::ip::tcp::socket socket,
                     std::shared_ptr<HttpServer::Shared> shared);

}  // namespace tuner::server

#endif  // TUNER_TUNER_SERVER_HTTP_SERVER_H_
