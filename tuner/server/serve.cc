#include "tuner/server/serve.h"

#include <spdlog/spdlog.h>
#include <sys/resource.h>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <cctype>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "tuner/base/run_contained.h"
#include "tuner/base/tuner_lock.h"
#include "tuner/config/device_setup.h"
#include "tuner/server/dashboard.h"
#include "tuner/server/http_client.h"
#include "tuner/server/http_server.h"
#include "tuner/server/hub_control.h"
#include "tuner/server/token.h"

namespace tuner::server {

namespace {

namespace net = boost::asio;
namespace fs = std::filesystem;

constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;
constexpr int kExitBadInput = 2;

int Fail(const std::string& message, int code) {
  std::fprintf(stderr, "tuner: %s\n", message.c_str());
  return code;
}

// The address to bind for --listen's HOST: an IP literal as it is, else the
// name resolved (localhost: 127.0.0.1), an IPv4 address first when it has
// both, as the default 127.0.0.1 is.
core::Result<net::ip::address> ListenAddress(const std::string& host) {
  boost::system::error_code ec;
  auto literal = net::ip::make_address(host, ec);
  if (!ec) return literal;
  net::io_context io;
  net::ip::tcp::resolver resolver(io);
  auto found = resolver.resolve(host, "0", ec);
  if (ec || found.empty()) {
    return core::InvalidArgument("--listen: cannot resolve '" + host +
                                 "': " + (ec ? ec.message() : "no address"));
  }
  for (const auto& entry : found) {
    if (entry.endpoint().address().is_v4()) return entry.endpoint().address();
  }
  return found.begin()->endpoint().address();
}

// The token given (see ReadToken), long enough to resist guessing; ""
// when none is given.
core::Result<std::string> GivenToken(const std::optional<std::string>& file) {
  auto token = ReadToken(file);
  if (!token.ok()) return token;
  if ((file || !token.value().empty()) && token.value().size() < 16) {
    return core::InvalidArgument(
        "the token is too short: use at least 16 characters (e.g. "
        "`openssl rand -hex 24`)");
  }
  return token;
}

std::string Lower(std::string text) {
  for (char& c : text) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return text;
}

// What a request's Host may name: the bound address, localhost, the
// loopback literals when bound to loopback, and the --allow-host names.
void SetAllowedHosts(const net::ip::address& address, const std::string& host,
                     const std::vector<std::string>& allow_hosts,
                     Api::Options& api) {
  api.allowed_hosts = {"localhost", Lower(host), address.to_string()};
  if (address.is_loopback()) {
    api.allowed_hosts.push_back("127.0.0.1");
    api.allowed_hosts.push_back("::1");
  }
  for (const auto& name : allow_hosts) api.allowed_hosts.push_back(Lower(name));
  api.any_ip_host = address.is_unspecified();
}

struct MachineDevices {
  int total = 0;
  std::string kind = "cpu";
};

MachineDevices DetectMachine() {
  MachineDevices out;
  auto pool = SetUpDevices(DevicesSpec{}, fs::current_path().string());
  if (!pool.ok()) return out;
  out.total =
      static_cast<int>(pool.value().groups()) * pool.value().group_size();
  out.kind = std::string(runner::ToString(pool.value().kind()));
  return out;
}

// Raises the open-file limit to its hard maximum and returns how many
// connections fit under it, leaving room for the trials' files and SQLite.
int ConnectionCap(int wanted) {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return wanted;
  if (limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
    getrlimit(RLIMIT_NOFILE, &limit);
  }
  if (limit.rlim_cur == RLIM_INFINITY) return wanted;
  long room = static_cast<long>(limit.rlim_cur) - 256;
  return static_cast<int>(std::max(16L, std::min<long>(wanted, room)));
}

}  // namespace

int Serve(const ServeOptions& options) {
  auto listen = ParseHostPort(options.listen, "", /*any_port=*/true);
  if (!listen.ok()) return Fail("--listen: " + listen.message(), kExitBadInput);
  const std::string& host = listen.value().host;
  auto port = static_cast<uint16_t>(std::stoi(listen.value().port));
  auto resolved = ListenAddress(host);
  if (!resolved.ok()) return Fail(resolved.message(), kExitBadInput);
  const net::ip::address address = resolved.value();
  auto token = GivenToken(options.token_file);
  if (!token.ok()) return Fail(token.message(), kExitBadInput);
  auto store = storage::TrialStore::Open(options.db_path);
  if (!store.ok()) return Fail(store.message(), kExitFailure);
  const bool database_token = token.value().empty();
  if (database_token) {
    token = LoadOrCreateTokenFile(TokenPathFor(options.db_path));
    if (!token.ok()) return Fail(token.message(), kExitBadInput);
  }

  // Outlives both loops: sessions left in `http` unsubscribe when it is
  // destroyed.
  EventBus bus;
  net::io_context sweeps;  // the experiments: one thread, this one
  net::io_context http;    // the HTTP sessions: http_threads threads
  ExperimentHub::Options hub_options;
  hub_options.db_path = options.db_path;
  hub_options.shim_path = ShimPath();
  hub_options.cpus =
      static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  ExperimentHub hub(sweeps, *store.value(), bus, hub_options);
  HubControl control(sweeps, hub);
  StorePool stores(options.db_path);
  MachineDevices machine = DetectMachine();
  Api::Options api_options;
  api_options.db_path = options.db_path;
  api_options.token = token.value();
  api_options.token_for_reads = !address.is_loopback();
  SetAllowedHosts(address, host, options.allow_hosts, api_options);
  api_options.default_base_dir = fs::current_path().string();
  api_options.devices_total = machine.total;
  api_options.devices_kind = machine.kind;
  Api api(stores, bus, control, api_options, DashboardAssets());
  HttpLimits limits;
  limits.max_connections = ConnectionCap(limits.max_connections);
  HttpServer server(http, api, bus, limits);
  if (auto s = server.Listen(address.to_string(), port); !s.ok()) {
    return Fail(s.message(), kExitFailure);
  }
  // The CLI sends `<db>.token` to this address only.
  if (database_token) {
    auto bound = BindTokenToServer(options.db_path, address.to_string(),
                                   server.port(), getpid());
    if (!bound.ok()) return Fail(bound.message(), kExitFailure);
  }
  // The name as given (http://localhost:8080), in brackets if IPv6.
  bool v6_literal = host.find(':') != std::string::npos;
  std::string url = "http://" + (v6_literal ? "[" + host + "]" : host) + ":" +
                    std::to_string(server.port());
  hub_options.owner = "server=" + url + " pid=" + std::to_string(getpid());
  // The owner is read when a lock is taken: set it before any experiment.
  hub.set_owner(hub_options.owner);

  net::signal_set signals(sweeps, SIGINT, SIGTERM);
  int signals_seen = 0;
  std::function<void(const boost::system::error_code&, int)> on_signal =
      [&](const boost::system::error_code& e, int) {
        if (e) return;
        if (++signals_seen == 1) {
          spdlog::warn(
              "stopping: every experiment's trials are stopped "
              "(again to kill them now)");
          server.Stop();
          hub.Shutdown([&sweeps] { sweeps.stop(); });
        } else {
          hub.KillAll();
        }
        signals.async_wait(on_signal);
      };
  signals.async_wait(on_signal);
  if (options.resume) {
    // As a POST .../resume does: detection off the sweeps' thread.
    net::post(sweeps, [&hub, &control] {
      for (const auto& name : hub.Unfinished()) {
        control.Resume(name, [name](const core::Status& s) {
          if (s.ok()) {
            spdlog::info("took up experiment '{}' from a previous service",
                         name);
          } else {
            spdlog::warn("cannot resume experiment '{}': {}", name,
                         s.message());
          }
        });
      }
    });
  }
  std::vector<std::thread> threads;
  for (int i = 0; i < std::max(1, options.http_threads); ++i) {
    threads.emplace_back([&http] { RunContained(http, "HTTP"); });
  }
  std::printf("listening on %s\n", url.c_str());
  // Like Jupyter: the URL that opens the dashboard with its token.
  std::printf("dashboard: %s/?token=%s\n", url.c_str(), token.value().c_str());
  std::fflush(stdout);
  spdlog::info("serving {} on {} (dashboard: {}/)", options.db_path, url, url);
  RunContained(sweeps, "experiments");
  http.stop();
  for (auto& t : threads) t.join();
  if (database_token) UnbindTokenFromServer(options.db_path, getpid());
  return kExitOk;
}

}  // namespace tuner::server
