// An in-process `tuner serve` for tests: the sweeps' loop and the HTTP
// loop on their own threads, a real SQLite file in a fresh directory and a
// real loopback socket on a free port.
#ifndef TUNER_TESTS_SERVER_SERVICE_FIXTURE_H_
#define TUNER_TESTS_SERVER_SERVICE_FIXTURE_H_

#include <sys/stat.h>
#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <filesystem>
#include <fstream>
#include <future>
#include <optional>
#include <string>
#include <thread>
#include <utility>  // before Asio: Boost 1.74 with GCC 12 needs it

#include "tests/catch.h"
#include "tests/support/wait_for.h"
#include "tuner/server/api.h"
#include "tuner/server/dashboard.h"
#include "tuner/server/experiment_hub.h"
#include "tuner/server/http_client.h"
#include "tuner/server/http_server.h"
#include "tuner/server/hub_control.h"
#include "tuner/server/token.h"

namespace tuner::testing {

class Service {
 public:
  struct Options {
    // The token every mutation needs; kept beside the database in
    // `<db>.token` (mode 0600), where the CLI finds it, as with `tuner serve`.
    std::string token = "test-token-0123456789abcdef0123456789";
    bool token_for_reads = false;
    server::HttpLimits limits;
    int devices_total = 8;
  };

  Service() : Service(Options()) {}
  explicit Service(Options options) {
    static int counter = 0;
    dir_ = std::filesystem::temp_directory_path() /
           ("tuner-service-" + std::to_string(getpid()) + "-" +
            std::to_string(counter++));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    db_ = (dir_ / "tuner.db").string();
    token_ = options.token;
    std::ofstream(server::TokenPathFor(db_)) << token_ << "\n";
    chmod(server::TokenPathFor(db_).c_str(), 0600);
    auto store = storage::TrialStore::Open(db_);
    REQUIRE(store.ok());
    store_ = std::move(store).value();
    server::ExperimentHub::Options hub;
    hub.db_path = db_;
    hub.shim_path = TUNER_SHIM;
    hub.owner = "server=test pid=" + std::to_string(getpid());
    hub.cpus = 2;
    hub_.emplace(sweeps_, *store_, bus_, hub);
    control_.emplace(sweeps_, *hub_);
    stores_.emplace(db_);
    server::Api::Options api;
    api.db_path = db_;
    api.token = options.token;
    api.token_for_reads = options.token_for_reads;
    api.default_base_dir = dir_.string();
    api.devices_total = options.devices_total;
    api.devices_kind = "habana";
    api_.emplace(*stores_, bus_, *control_, api, server::DashboardAssets());
    server_.emplace(http_, *api_, bus_, options.limits);
    REQUIRE(server_->Listen("127.0.0.1", 0).ok());
    url_ = "http://127.0.0.1:" + std::to_string(server_->port());
    // As `tuner serve` does: `<db>.token` belongs to this address.
    REQUIRE(
        server::BindTokenToServer(db_, "127.0.0.1", server_->port(), getpid())
            .ok());
    sweeps_guard_.emplace(sweeps_.get_executor());
    http_guard_.emplace(http_.get_executor());
    sweeps_thread_ = std::thread([this] { sweeps_.run(); });
    http_thread_ = std::thread([this] { http_.run(); });
  }

  ~Service() {
    std::promise<void> stopped;
    boost::asio::post(sweeps_, [this, &stopped] {
      hub_->Shutdown([&stopped] { stopped.set_value(); });
    });
    stopped.get_future().wait();
    sweeps_guard_.reset();
    sweeps_.stop();
    sweeps_thread_.join();
    server_->Stop();
    http_guard_.reset();
    http_.stop();
    http_thread_.join();
  }

  const std::string& url() const { return url_; }
  const std::string& db() const { return db_; }
  const std::filesystem::path& dir() const { return dir_; }
  server::EventBus& bus() { return bus_; }
  // Runs `f` on the sweeps' thread and waits for it.
  template <typename F>
  void OnHub(F f) {
    std::promise<void> done;
    boost::asio::post(sweeps_, [&] {
      f(*hub_);
      done.set_value();
    });
    done.get_future().wait();
  }

  const std::string& token() const { return token_; }
  // A client with the service's token.
  std::unique_ptr<server::HttpClient> Client() { return Client(token_); }
  // A client with `token` ("": none).
  std::unique_ptr<server::HttpClient> Client(const std::string& token) {
    auto client = server::HttpClient::Connect(url_, token);
    REQUIRE(client.ok());
    return std::move(client).value();
  }

 private:
  using Guard =
      boost::asio::executor_work_guard<boost::asio::io_context::executor_type>;
  std::filesystem::path dir_;
  std::string db_;
  std::string url_;
  std::string token_;
  server::EventBus bus_;
  boost::asio::io_context sweeps_;
  boost::asio::io_context http_;
  std::unique_ptr<storage::TrialStore> store_;
  std::optional<server::ExperimentHub> hub_;
  std::optional<server::HubControl> control_;
  std::optional<server::StorePool> stores_;
  std::optional<server::Api> api_;
  std::optional<server::HttpServer> server_;
  std::optional<Guard> sweeps_guard_;
  std::optional<Guard> http_guard_;
  std::thread sweeps_thread_;
  std::thread http_thread_;
};

// The path of examples/toy_trainer and device_trainer in a config.
inline std::string WithTrainers(std::string yaml) {
  for (size_t at; (at = yaml.find("TOY")) != std::string::npos;) {
    yaml.replace(at, 3, TOY_TRAINER);
  }
  for (size_t at; (at = yaml.find("DEVTRAINER")) != std::string::npos;) {
    yaml.replace(at, 10, DEVICE_TRAINER);
  }
  return yaml;
}

// A toy sweep on 2 cpu slots: `trials` trials of `epochs` epochs of
// `sleep_ms` each under ASHA (grace 1, reduction factor 2, max_t 4).
inline std::string ToySweepYaml(const std::string& name, int trials = 4,
                                int sleep_ms = 10, int epochs = 4) {
  return WithTrainers("name: " + name + "\ncommand: TOY --lr {lr} --epochs " +
                      std::to_string(epochs) + " --sleep-ms " +
                      std::to_string(sleep_ms) + R"(
metric: score
mode: max
time_attr: epoch
search_space: {lr: {type: loguniform, low: 1.0e-3, high: 1.0}}
num_trials: )" + std::to_string(trials) +
                      R"(
scheduler: {type: asha, max_t: 4, grace_period: 1, reduction_factor: 2}
devices: {kind: cpu, slots: 2}
)");
}

// Waits up to `seconds` for GET `target` to answer `expected` in its body.
inline Waited WaitForBody(server::HttpClient& client, const std::string& target,
                          const std::string& expected, double seconds = 30) {
  return WaitFor(
      "GET " + target + " to answer " + expected,
      std::chrono::milliseconds(static_cast<int>(seconds * 1000)),
      [&] {
        auto r = client.Call("GET", target);
        return r.ok() && r.value().body.find(expected) != std::string::npos;
      },
      std::chrono::milliseconds(20));
}

}  // namespace tuner::testing

#endif  // TUNER_TESTS_SERVER_SERVICE_FIXTURE_H_
