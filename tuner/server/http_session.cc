// One HTTP connection: requests read with bounded sizes and time, answered
// by the Api; GET /api/events turns it into a server-sent event stream.
#include <spdlog/spdlog.h>

#include <array>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <mutex>
#include <optional>

#include "tuner/server/http_server.h"

namespace tuner::server {

namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;

// Counts the connection while it lives.
struct ConnectionCount {
  explicit ConnectionCount(std::shared_ptr<HttpServer::Shared> s)
      : shared(std::move(s)) {
    ++shared->connections;
  }
  ConnectionCount(ConnectionCount&& other) noexcept
      : shared(std::move(other.shared)) {}
  ConnectionCount(const ConnectionCount&) = delete;
  ConnectionCount& operator=(const ConnectionCount&) = delete;
  ~ConnectionCount() {
    if (shared) --shared->connections;
  }
  std::shared_ptr<HttpServer::Shared> shared;
};

// Holds one of the event streams its client address may open.
class StreamSlot {
 public:
  // nullopt when `address` holds its share already.
  static std::optional<StreamSlot> Take(
      std::shared_ptr<HttpServer::Shared> shared, const std::string& address) {
    std::lock_guard<std::mutex> lock(shared->streams_mutex);
    int& open = shared->streams[address];
    if (open >= shared->limits.events_per_client) return std::nullopt;
    ++open;
    return StreamSlot(std::move(shared), address);
  }
  StreamSlot(StreamSlot&& other) noexcept
      : shared_(std::move(other.shared_)), address_(other.address_) {}
  StreamSlot(const StreamSlot&) = delete;
  StreamSlot& operator=(const StreamSlot&) = delete;
  ~StreamSlot() {
    if (!shared_) return;
    std::lock_guard<std::mutex> lock(shared_->streams_mutex);
    if (--shared_->streams[address_] <= 0) shared_->streams.erase(address_);
  }

 private:
  StreamSlot(std::shared_ptr<HttpServer::Shared> shared, std::string address)
      : shared_(std::move(shared)), address_(std::move(address)) {}
  std::shared_ptr<HttpServer::Shared> shared_;
  std::string address_;
};

// Streams the bus's events as `id: N / event: TYPE / data: JSON`, with a
// comment line every 15 s so that proxies and clients see it is alive.
class EventStream : public std::enable_shared_from_this<EventStream> {
 public:
  EventStream(beast::tcp_stream stream, ConnectionCount count, StreamSlot slot,
              int64_t after)
      : stream_(std::move(stream)),
        count_(std::move(count)),
        slot_(std::move(slot)),
        timer_(stream_.get_executor()),
        last_(after) {}

  void Start() {
    auto self = shared_from_this();
    std::weak_ptr<EventStream> weak = self;
    auto executor = stream_.get_executor();
    token_ = count_.shared->bus.Subscribe([weak, executor] {
      net::post(executor, [weak] {
        if (auto s = weak.lock()) s->Notified();
      });
    });
    text_ =
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
        "Cache-Control: no-cache\r\nConnection: keep-alive\r\n\r\n"
        "retry: 1000\n\n";
    Write();
    WatchClose();
  }

  ~EventStream() { count_.shared->bus.Unsubscribe(token_); }

 private:
  void Notified() {
    notified_ = true;
    timer_.cancel();
  }

  void Pump() {
    bool lost = false;
    auto events = count_.shared->bus.Since(last_, 256, lost);
    text_.clear();
    if (lost) text_ += "event: reset\ndata: {}\n\n";
    for (const auto& e : events) {
      text_ += "id: " + std::to_string(e.id) + "\nevent: " + e.type +
               "\ndata: " + e.data + "\n\n";
      last_ = e.id;
    }
    if (!text_.empty()) return Write();
    if (notified_) {
      notified_ = false;
      return Pump();
    }
    timer_.expires_after(std::chrono::seconds(15));
    timer_.async_wait(
        [self = shared_from_this()](boost::system::error_code ec) {
          self->notified_ = false;
          if (!self->stream_.socket().is_open()) return;
          if (!ec) self->text_ = ": alive\n\n";
          if (!ec) return self->Write();
          self->Pump();
        });
  }

  // The client sends nothing more; a read ends when it leaves, and then the
  // stream (and its slot) go at once, not at the next write.
  void WatchClose() {
    stream_.socket().async_read_some(
        net::buffer(sink_),
        [self = shared_from_this()](boost::system::error_code ec, size_t) {
          if (!ec) return self->WatchClose();
          boost::system::error_code ignored;
          self->stream_.socket().close(ignored);
          self->timer_.cancel();
        });
  }

  void Write() {
    if (!stream_.socket().is_open()) return;
    stream_.expires_after(count_.shared->limits.write_timeout);
    net::async_write(
        stream_, net::buffer(text_),
        [self = shared_from_this()](boost::system::error_code ec, size_t) {
          if (ec) return;  // the client left, or was too slow
          self->Pump();
        });
  }

  beast::tcp_stream stream_;
  ConnectionCount count_;
  StreamSlot slot_;
  net::steady_timer timer_;
  std::array<char, 256> sink_{};
  int64_t last_;
  int token_ = 0;
  bool notified_ = false;
  std::string text_;
};

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, std::shared_ptr<HttpServer::Shared> shared)
      : stream_(std::move(socket)), count_(std::move(shared)) {}

  void Read() {
    parser_.emplace();
    parser_->header_limit(
        static_cast<uint32_t>(count_.shared->limits.header_bytes));
    parser_->body_limit(count_.shared->limits.body_bytes);
    stream_.expires_after(first_ ? count_.shared->limits.read_timeout
                                 : count_.shared->limits.idle_timeout);
    http::async_read(stream_, buffer_, *parser_,
                     [self = shared_from_this()](beast::error_code ec, size_t) {
                       self->OnRead(ec);
                     });
  }

 private:
  void OnRead(beast::error_code ec) {
    first_ = false;
    if (ec == http::error::body_limit) {
      return Fail(413, "the request body is larger than " +
                           std::to_string(count_.shared->limits.body_bytes) +
                           " bytes");
    }
    if (ec == http::error::header_limit) {
      return Fail(431, "the request headers are too large");
    }
    if (ec &&
        ec.category() ==
            beast::error_code(http::error::bad_target).category() &&
        ec != http::error::end_of_stream &&
        ec != http::error::partial_message) {
      return Fail(400, "malformed HTTP request: " + ec.message());
    }
    if (ec) return Close();  // the client left or timed out
    const auto& message = parser_->get();
    Request request;
    request.method = std::string(message.method_string());
    request.target = std::string(message.target());
    request.body = message.body();
    request.authorization = std::string(message[http::field::authorization]);
    request.last_event_id = std::string(message["Last-Event-ID"]);
    request.host = std::string(message[http::field::host]);
    request.origin = std::string(message[http::field::origin]);
    request.content_type = std::string(message[http::field::content_type]);
    bool keep_alive = message.keep_alive();
    // A mutation is answered later, from the thread that carried it out:
    // come back to this connection's strand to send the answer.
    auto executor = stream_.get_executor();
    count_.shared->api.Handle(request, [self = shared_from_this(), executor,
                                        keep_alive](Response response) {
      net::post(executor,
                [self, keep_alive, response = std::move(response)]() mutable {
                  self->Respond(std::move(response), keep_alive);
                });
    });
  }

  void Respond(Response response, bool keep_alive) {
    if (!response.event_stream || response.status != 200) {
      return Send(std::move(response), keep_alive);
    }
    boost::system::error_code ec;
    auto peer = stream_.socket().remote_endpoint(ec);
    if (ec) return Close();
    auto slot = StreamSlot::Take(count_.shared, peer.address().to_string());
    if (!slot) {
      return Send(
          ErrorResponse(
              429, "too many event streams from this address (" +
                       std::to_string(count_.shared->limits.events_per_client) +
                       "); close one"),
          false);
    }
    stream_.expires_never();
    std::make_shared<EventStream>(std::move(stream_), std::move(count_),
                                  std::move(*slot), response.events_after)
        ->Start();
  }

  void Send(Response response, bool keep_alive) {
    auto res = std::make_shared<http::response<http::string_body>>(
        static_cast<http::status>(response.status), 11);
    res->set(http::field::server, "tuner");
    res->set(http::field::content_type, response.content_type);
    res->set(http::field::cache_control, "no-store");
    res->set("X-Content-Type-Options", "nosniff");
    for (const auto& [name, value] : response.headers) res->set(name, value);
    res->keep_alive(keep_alive);
    res->body() = std::move(response.body);
    res->prepare_payload();
    stream_.expires_after(count_.shared->limits.write_timeout);
    http::async_write(
        stream_, *res,
        [self = shared_from_this(), res](beast::error_code ec, size_t) {
          if (ec) return self->Close();
          if (!res->keep_alive()) return self->Close();
          self->Read();
        });
  }

  void Fail(int status, const std::string& message) {
    Send(ErrorResponse(status, message), false);
  }

  void Close() {
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
  }

  beast::tcp_stream stream_;
  ConnectionCount count_;
  beast::flat_buffer buffer_{8192};
  std::optional<http::request_parser<http::string_body>> parser_;
  bool first_ = true;
};

}  // namespace

void ServeConnection(tcp::socket socket,
                     std::shared_ptr<HttpServer::Shared> shared) {
  std::make_shared<Session>(std::move(socket), std::move(shared))->Read();
}

}  // namespace tuner::server
