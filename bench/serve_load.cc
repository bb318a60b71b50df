// serve_load: the service under query load. Starts `tuner serve`, runs one
// sweep with no load (the baseline), then the same sweep while clients send
// --rate status and best queries per second for --seconds, open loop (each
// request has a scheduled send time; its latency counts from then, so a
// stalled server cannot hide behind its own slowness). Prints one JSON
// object: errors, p50/p99 latency, the achieved rate, and how much longer
// the loaded sweep took than the baseline.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>
#include <vector>

#include "bench/percentile.h"
#include "bench/serve_process.h"
#include "trial_runner/processes/spawn.h"
#include "tuner/server/http_client.h"

namespace {

using tuner::bench::Percentile;
using tuner::bench::Server;

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using nlohmann::json;
using tuner::server::HttpClient;

struct Options {
  double rate = 1000;  // requests per second, all clients together
  double seconds = 30;
  int clients = 8;
  int trials = 256;  // FIFO, 8 slots, 10 epochs of --epoch-ms each
  int epoch_ms = 100;
  std::string dir;
};

[[noreturn]] void Die(const std::string& message) {
  std::cerr << "serve_load: " << message << "\n";
  std::exit(1);
}

std::string SweepYaml(const std::string& name, const Options& o) {
  return "name: " + name +
         "\ncommand: " TOY_TRAINER " --lr {lr} --epochs 10 --sleep-ms " +
         std::to_string(o.epoch_ms) +
         "\nmetric: score\nmode: max\ntime_attr: epoch\n"
         "search_space: {lr: {type: loguniform, low: 1.0e-5, high: 1.0}}\n"
         "searcher: {type: random}\nnum_trials: " +
         std::to_string(o.trials) +
         "\nscheduler: {type: fifo, max_t: 10}\n"
         "devices: {kind: cpu, slots: 8}\n";
}

json Get(HttpClient& client, const std::string& target) {
  auto r = client.Call("GET", target);
  if (!r.ok() || r.value().status != 200) Die("GET " + target + " failed");
  return json::parse(r.value().body);
}

void Submit(const std::string& url, const std::string& token,
            const std::string& name, const Options& o) {
  auto client = HttpClient::Connect(url, token);
  if (!client.ok()) Die(client.message());
  auto submitted =
      client.value()->Call("POST", "/api/experiments", SweepYaml(name, o));
  if (!submitted.ok() || submitted.value().status != 201) {
    Die("submit failed: " +
        (submitted.ok() ? submitted.value().body : submitted.message()));
  }
}

// Waits for the sweep's end; returns its span, from the first lease to the
// last release (the database's own timestamps).
double WaitForEnd(const std::string& url, const std::string& name) {
  auto client = HttpClient::Connect(url);
  if (!client.ok()) Die(client.message());
  for (;;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    json e = Get(*client.value(), "/api/experiments/" + name);
    if (e["status"] == "finished") break;
    if (e["status"] != "running") Die(name + " ended " + e["status"].dump());
  }
  json leases = Get(*client.value(), "/api/experiments/" + name + "/leases");
  double first = 1e300, last = 0;
  for (const auto& l : leases) {
    first = std::min(first, l["acquired_at"].get<double>());
    last = std::max(last, l["released_at"].get<double>());
  }
  return last - first;
}

struct LoadResult {
  std::vector<double> latencies_ms;
  int64_t errors = 0;
  double seconds = 0;
};

// One client: requests at fixed intervals from `start`, round robin over
// the status and best queries, until `end`.
void Client(const std::string& url, const std::vector<std::string>& targets,
            Clock::time_point start, Clock::time_point end,
            std::chrono::nanoseconds interval, LoadResult& out) {
  auto client = HttpClient::Connect(url);
  if (!client.ok()) Die(client.message());
  size_t i = 0;
  for (auto at = start; at < end; at += interval, ++i) {
    std::this_thread::sleep_until(at);
    auto r = client.value()->Call("GET", targets[i % targets.size()], "",
                                  std::chrono::seconds(10));
    if (!r.ok() || r.value().status != 200) ++out.errors;
    out.latencies_ms.push_back(
        std::chrono::duration<double, std::milli>(Clock::now() - at).count());
  }
}

LoadResult Load(const std::string& url, const std::string& name,
                const Options& o) {
  std::vector<std::string> targets = {
      "/api/experiments", "/api/experiments/" + name + "/best?top=1",
      "/api/experiments?format=table",
      "/api/experiments/" + name + "/best?top=5&format=table"};
  auto interval =
      std::chrono::nanoseconds(static_cast<int64_t>(1e9 * o.clients / o.rate));
  auto start = Clock::now() + std::chrono::milliseconds(100);
  auto end =
      start + std::chrono::milliseconds(static_cast<int64_t>(o.seconds * 1000));
  std::vector<LoadResult> parts(o.clients);
  std::vector<std::thread> threads;
  for (int c = 0; c < o.clients; ++c) {
    // Staggered, so the clients' sends spread over each interval.
    auto offset = interval * c / o.clients;
    threads.emplace_back([&, c, offset] {
      Client(url, targets, start + offset, end, interval, parts[c]);
    });
  }
  for (auto& t : threads) t.join();
  LoadResult all;
  all.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  for (auto& p : parts) {
    all.errors += p.errors;
    all.latencies_ms.insert(all.latencies_ms.end(), p.latencies_ms.begin(),
                            p.latencies_ms.end());
  }
  return all;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"tuner serve under status/best query load while a sweep runs"};
  app.add_option("--rate", o.rate, "requests per second (default 1000)")
      ->check(CLI::PositiveNumber);
  app.add_option("--seconds", o.seconds, "load duration (default 30)")
      ->check(CLI::PositiveNumber);
  app.add_option("--clients", o.clients, "client connections (default 8)")
      ->check(CLI::Range(1, 256));
  app.add_option("--trials", o.trials, "trials of each sweep (default 256)")
      ->check(CLI::PositiveNumber);
  app.add_option("--epoch-ms", o.epoch_ms, "each of 10 epochs (default 100)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--dir", o.dir, "database and trials (default: temp dir)");
  CLI11_PARSE(app, argc, argv);

  fs::path dir = o.dir.empty() ? fs::temp_directory_path() : fs::path(o.dir);
  dir /= "tuner-serve-load-" + std::to_string(getpid());
  fs::create_directories(dir);
  double ideal = (o.trials + 7) / 8 * 10 * o.epoch_ms / 1000.0;
  json out;
  {
    Server server(dir);
    double cpu0 = server.CpuSeconds();
    Submit(server.url(), server.token(), "baseline", o);
    double baseline = WaitForEnd(server.url(), "baseline");
    double cpu1 = server.CpuSeconds();
    Submit(server.url(), server.token(), "loaded", o);
    LoadResult load;
    std::thread loader([&] { load = Load(server.url(), "loaded", o); });
    double loaded = WaitForEnd(server.url(), "loaded");
    loader.join();
    double cpu2 = server.CpuSeconds();
    double achieved =
        static_cast<double>(load.latencies_ms.size()) / load.seconds;
    out = {{"requests", load.latencies_ms.size()},
           {"errors", load.errors},
           {"target_rate", o.rate},
           {"achieved_rate", achieved},
           {"p50_ms", Percentile(load.latencies_ms, 0.50)},
           {"p99_ms", Percentile(load.latencies_ms, 0.99)},
           {"max_ms", Percentile(load.latencies_ms, 1.0)},
           {"sweep_ideal_s", ideal},
           {"sweep_baseline_s", baseline},
           {"sweep_loaded_s", loaded},
           {"sweep_slowdown", loaded / baseline - 1},
           {"load_outlasted_by_sweep", loaded >= o.seconds},
           {"server_cpu_baseline_s", cpu1 - cpu0},
           {"server_cpu_loaded_s", cpu2 - cpu1}};
  }
  fs::remove_all(dir);
  std::cout << out.dump(2) << std::endl;
  return 0;
}
