// Fuzz target: raw bytes as an HTTP request, through Beast's request parser
// (with the service's header and body limits) and Api::Handle, over an
// empty database and a Control that acts on nothing. The API must answer
// every request once with a status from 200 to 599, and never crash.
#include <unistd.h>

#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>  // before Asio: Boost 1.74 with GCC 12 needs it

#include "tuner/server/api.h"
#include "tuner/server/http_server.h"

namespace {

namespace http = boost::beast::http;
using tuner::server::Response;

// Acts on nothing: every mutation "succeeds" at once.
class NoControl : public tuner::server::Control {
 public:
  void Submit(tuner::ExperimentConfig, std::string, Done done) override {
    done(tuner::core::Status::Ok());
  }
  void Stop(const std::string&, bool, Done done) override {
    done(tuner::core::Status::Ok());
  }
  void Resume(const std::string&, Done done) override {
    done(tuner::core::Status::Ok());
  }
  std::vector<tuner::server::RunningInfo> Running() const override {
    return {};
  }
  void Offload(std::function<void()> work) override { work(); }
};

struct World {
  World()
      : dir(std::filesystem::temp_directory_path() /
            ("tuner-http-fuzz-" + std::to_string(getpid()))),
        db((dir / "tuner.db").string()) {
    std::filesystem::create_directories(dir);
    auto store = tuner::storage::TrialStore::Open(db);
    if (!store.ok()) __builtin_trap();
    stores = std::make_unique<tuner::server::StorePool>(db);
    tuner::server::Api::Options options;
    options.db_path = db;
    options.token = "fuzz-token-0123456789abcdef0123456789";
    options.default_base_dir = dir.string();
    api = std::make_unique<tuner::server::Api>(*stores, bus, control, options);
  }
  std::filesystem::path dir;
  std::string db;
  tuner::server::EventBus bus;
  NoControl control;
  std::unique_ptr<tuner::server::StorePool> stores;
  std::unique_ptr<tuner::server::Api> api;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static World world;
  tuner::server::HttpLimits limits;
  http::request_parser<http::string_body> parser;
  parser.header_limit(static_cast<uint32_t>(limits.header_bytes));
  parser.body_limit(limits.body_bytes);
  parser.eager(true);
  boost::beast::error_code ec;
  parser.put(boost::asio::buffer(data, size), ec);
  if (!ec && !parser.is_done()) parser.put_eof(ec);
  if (ec || !parser.is_done()) return 0;  // the server answers 4xx or closes
  const auto& message = parser.get();
  tuner::server::Request request;
  request.method = std::string(message.method_string());
  request.target = std::string(message.target());
  request.body = message.body();
  request.authorization = std::string(message[http::field::authorization]);
  request.host = std::string(message[http::field::host]);
  request.origin = std::string(message[http::field::origin]);
  request.content_type = std::string(message[http::field::content_type]);
  int answers = 0;
  world.api->Handle(request, [&answers](Response response) {
    ++answers;
    if (response.status < 200 || response.status > 599) __builtin_trap();
  });
  if (answers != 1) __builtin_trap();  // NoControl answers at once
  return 0;
}
