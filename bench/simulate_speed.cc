// How fast `tuner simulate` runs: N trials of E epochs each on W workers,
// through the real sweep, scheduler, searcher and SQLite store (a file by
// default: storage included), on a synthetic table of N rows (row i: loss
// 1 + i mod 97 / 100 + 1/epoch, each epoch 60 s). Prints one JSON object:
// trials, reports, wall_s, reports_per_s, simulated makespan_s.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>

#include "CLI/CLI.hpp"
#include "core/metrics.h"
#include "storage/trial_store.h"
#include "tuner/config/config_loader.h"
#include "tuner/sim/curve_table.h"
#include "tuner/sim/simulation.h"

namespace {

[[noreturn]] void Fail(const std::string& message) {
  std::fprintf(stderr, "simulate_speed: %s\n", message.c_str());
  std::exit(2);
}

tuner::sim::CurveTable SyntheticTable(int rows, int epochs) {
  tuner::sim::CurveTable table;
  table.source = "synthetic";
  table.rows.reserve(rows);
  for (int i = 0; i < rows; ++i) {
    tuner::sim::CurveRow row;
    row.id = "r" + std::to_string(i);
    row.config = nlohmann::json::object({{"i", i}});
    for (int e = 1; e <= epochs; ++e) {
      tuner::sim::CurveStep step;
      step.seconds = 60;
      step.metrics = {{"epoch", static_cast<double>(e)},
                      {"loss", 1 + (i % 97) / 100.0 + 1.0 / e}};
      row.steps.push_back(std::move(step));
    }
    table.rows.push_back(std::move(row));
  }
  return table;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tuner simulate's speed on a synthetic table"};
  int trials = 10000, epochs = 50, workers = 8;
  std::string scheduler = "fifo", storage;
  app.add_option("--trials", trials)->check(CLI::Range(1, 10'000'000));
  app.add_option("--epochs", epochs)->check(CLI::Range(1, 10'000));
  app.add_option("--workers", workers)->check(CLI::Range(1, 1024));
  app.add_option("--scheduler", scheduler)
      ->check(CLI::IsMember({"fifo", "asha"}));
  app.add_option("--storage", storage,
                 "database file (default: a new temporary file), or memory");
  CLI11_PARSE(app, argc, argv);

  std::string e = std::to_string(epochs);
  std::string yaml =
      "name: speed\ncommand: \"true\"\nmetric: loss\nmode: min\n"
      "time_attr: epoch\nsearch_space: {}\nsearcher: {type: random, seed: "
      "1}\nnum_trials: " +
      std::to_string(trials) + "\nscheduler: " +
      (scheduler == "fifo" ? "{type: fifo}"
                           : "{type: asha, max_t: " + e +
                                 ", grace_period: 1, reduction_factor: 3}") +
      "\n";
  auto config = tuner::LoadConfigText(yaml, "speed.yaml", "/tmp", "/tmp");
  if (!config.ok()) Fail(config.message());
  std::string path = storage == "memory" ? ":memory:" : storage;
  bool temporary = storage.empty();
  if (temporary) {
    path = (std::filesystem::temp_directory_path() /
            ("simulate_speed-" + std::to_string(getpid()) + ".db"))
               .string();
  }
  auto table = SyntheticTable(trials, epochs);
  auto start = std::chrono::steady_clock::now();
  auto store = tuner::storage::TrialStore::Open(path);
  if (!store.ok()) Fail(store.message());
  tuner::sim::SimulationOptions options;
  options.workers = workers;
  auto result = tuner::sim::Simulate(config.value(), "{}", table,
                                     *store.value(), options);
  if (!result.ok()) Fail(result.message());
  double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  auto curves = store.value()->reports().ListCurves(result.value().experiment);
  if (!curves.ok()) Fail(curves.message());
  size_t reports = curves.value().size();
  store.value().reset();
  if (temporary) {
    for (const char* suffix : {"", "-wal", "-shm"})
      std::filesystem::remove(path + suffix);
  }
  nlohmann::json out = {
      {"trials", result.value().trials},
      {"epochs", epochs},
      {"workers", workers},
      {"scheduler", scheduler},
      {"storage", storage.empty() ? "file" : storage},
      {"reports", reports},
      {"wall_s", wall},
      {"reports_per_s", reports / wall},
      {"makespan_s", result.value().makespan_s},
  };
  std::printf("%s\n", out.dump().c_str());
  return 0;
}
