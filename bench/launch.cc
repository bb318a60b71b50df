// launch: how fast the tuner turns trials over. Runs N trivial trials (a
// program that prints three reports and exits) on S cpu slots through the
// whole sweep path (SQLite file, leases, process spawn, output following)
// and prints one JSON object: launches per second, and the p50/p99 gap
// between the tuner seeing a trial's exit and the start of the next trial
// on the freed slot.
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <vector>

#include "bench/percentile.h"
#include "storage/trial_store.h"
#include "tuner/config/config_loader.h"
#include "tuner/config/device_setup.h"
#include "tuner/sweep/sweep.h"

namespace {

using tuner::bench::Percentile;

using Clock = std::chrono::steady_clock;

// Records when trials end and start; each end is followed by the start of
// the trial that takes its slot.
class Timeline : public tuner::ProgressSink {
 public:
  void TrialStarted(const tuner::TrialEvent&,
                    const tuner::SweepCounts&) override {
    auto now = Clock::now();
    if (!pending_ends_.empty()) {
      gaps_.push_back(
          std::chrono::duration<double, std::milli>(now - pending_ends_.front())
              .count());
      pending_ends_.erase(pending_ends_.begin());
    }
  }
  void TrialReported(const tuner::TrialEvent&, double, double,
                     const tuner::core::Decision&,
                     const tuner::SweepCounts&) override {}
  void TrialEnded(const tuner::TrialEvent&, tuner::core::TrialStatus,
                  const std::string&, const tuner::SweepCounts&) override {
    pending_ends_.push_back(Clock::now());
  }
  void SweepEnded(const std::string&, const tuner::SweepCounts&) override {}
  std::vector<double>& gaps() { return gaps_; }

 private:
  std::vector<Clock::time_point> pending_ends_;
  std::vector<double> gaps_;
};

}  // namespace

int main(int argc, char** argv) {
  int trials = 2000, slots = 8;
  std::string trainer = TOY_TRAINER;
  CLI::App app{"trial turnover: launches/s and exit-to-next-start gaps"};
  app.add_option("--trials", trials);
  app.add_option("--slots", slots);
  app.add_option("--trainer", trainer, "prints three reports and exits");
  std::string base = std::filesystem::temp_directory_path().string();
  app.add_option("--dir", base, "where the database and trial dirs go");
  CLI11_PARSE(app, argc, argv);
  spdlog::set_level(spdlog::level::warn);  // stdout is for the JSON

  namespace fs = std::filesystem;
  fs::path dir =
      fs::path(base) / ("tuner-bench-launch-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string yaml = "name: launch\ncommand: " + trainer +
                     " --epochs 3 --quality {q}\nmetric: score\nmode: max\n"
                     "time_attr: epoch\nsearch_space: {q: {type: uniform, "
                     "low: 0.1, high: 0.9}}\nsearcher: {type: random}\n"
                     "num_trials: " +
                     std::to_string(trials) +
                     "\ndevices: {kind: cpu, slots: " + std::to_string(slots) +
                     "}\n";
  // Its own lock directory: the machine's may hold other tuners' leases.
  setenv("TUNER_LOCK_DIR", (dir / "locks").c_str(), 1);
  auto config = tuner::LoadConfigText(yaml, "launch.yaml", dir, dir);
  auto store = tuner::storage::TrialStore::Open((dir / "tuner.db").string());
  if (!config.ok() || !store.ok()) {
    std::cerr << "launch: " << config.status().message()
              << store.status().message() << "\n";
    return 1;
  }
  auto pool = tuner::SetUpDevices(config.value().devices, dir.string());
  if (!pool.ok()) return 1;
  boost::asio::io_context io;
  Timeline timeline;
  tuner::Sweep::Options options;
  options.trials_root = (dir / "trials").string();
  options.config_json = "{}";
  options.pool = &pool.value();
  options.runner.shim_path = TUNER_SHIM;
  options.on_finished = [&io] { io.stop(); };
  auto start = Clock::now();
  tuner::Sweep sweep(io, config.value(), *store.value(), timeline, options);
  if (!sweep.Start().ok()) return 1;
  io.run();
  double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  nlohmann::json out = {{"trials", trials},
                        {"slots", slots},
                        {"completed", sweep.counts().completed},
                        {"seconds", seconds},
                        {"launches_per_second", trials / seconds},
                        {"gap_ms_p50", Percentile(timeline.gaps(), 0.5)},
                        {"gap_ms_p99", Percentile(timeline.gaps(), 0.99)},
                        {"gaps", timeline.gaps().size()},
                        {"dir", base}};
  std::cout << out.dump() << "\n";
  fs::remove_all(dir);
  return 0;
}
