// Search quality on real learning curves: replays the NAS-Bench-NLP
// WikiText-2 table (../shared/benchmarks/nasbench-nlp-wt2) through `tuner
// simulate`'s engine (the real Sweep, scheduler, searcher and SQLite store
// on a simulated clock) for five methods and prints one JSON object with
// the figures bench/search_quality_optuna.py prints for its peer.
//
// Methods (minimise val_loss, time_attr epoch, max_t 50, 345 trials):
//   random          fifo, every trial to max_t, rows without replacement
//   asha_stopping   asha grace 1, rf 3, rows without replacement
//   asha_promotion  the same in promotion mode
//   hyperband       hyperband grace 1, rf 3 (all brackets)
//   tpe_asha        tpe over log num_params (nearest row), asha stopping
// Per seed (the searcher's seed): time to the target (the summary's
// expected best of random search after 64 full runs) = the first trajectory
// point <= target at or before the horizon H = horizon_factor * E64, E64 =
// 64 * mean run seconds / workers; device seconds until then (the stored
// leases); the best at 0.25, 0.5, 1.0 x E64; trials started before H.
// Medians over seeds as Python's statistics.median, unreached = +inf,
// an infinite median printed as null.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "storage/trial_store.h"
#include "tuner/config/config_loader.h"
#include "tuner/sim/curve_table.h"
#include "tuner/sim/simulation.h"

namespace {

using tuner::sim::CurveTable;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kBudgets[] = {0.25, 0.5, 1.0};

struct Setup {
  CurveTable table;
  double target = 0;  // expected best of random search, k = 64
  double mean_s = 0;  // mean seconds of a whole run
  double e64_s = 0;
  double horizon_s = 0;
  double min_params = 0, max_params = 0;
};

struct SeedFigures {
  std::optional<double> time, device;
  std::map<double, std::optional<double>> best_at;
  int64_t trials = 0;
};

[[noreturn]] void Fail(const std::string& message) {
  std::fprintf(stderr, "search_quality: %s\n", message.c_str());
  std::exit(2);
}

// The target and mean run seconds from the table's summary.
void ReadSummary(const std::string& path, Setup& setup) {
  std::ifstream in(path);
  if (!in) Fail("cannot read " + path);
  auto summary = nlohmann::json::parse(in, nullptr, false);
  if (summary.is_discarded()) Fail(path + ": not valid JSON");
  try {
    for (const auto& pool : summary.at("random_search")) {
      if (pool.at("pool") != "all") continue;
      for (const auto& k : pool.at("expected_random_search"))
        if (k.at("k") == 64)
          setup.target = k.at("expected_best_final_val_loss");
    }
    setup.mean_s = summary.at("seconds_per_config_total").at("mean");
  } catch (const nlohmann::json::exception& e) {
    Fail(path + ": " + e.what());
  }
  if (setup.target <= 0 || setup.mean_s <= 0) Fail(path + ": no k=64 target");
}

void FindParamRange(Setup& setup) {
  setup.min_params = kInf;
  setup.max_params = 0;
  for (const auto& row : setup.table.rows) {
    const auto& n = row.config.find("num_params");
    if (n == row.config.end() || !n->is_number()) continue;
    setup.min_params = std::min(setup.min_params, n->get<double>());
    setup.max_params = std::max(setup.max_params, n->get<double>());
  }
  if (!(setup.min_params > 0 && setup.max_params > setup.min_params))
    Fail(setup.table.source + ": no num_params range for tpe_asha");
}

// The experiment's YAML for a method and seed.
std::string MethodConfig(const std::string& method, uint64_t seed,
                         const Setup& setup) {
  std::string asha =
      "{type: asha, max_t: 50, grace_period: 1, reduction_factor: 3";
  std::string space = "search_space: {}\n";
  std::string searcher = "random";
  std::string scheduler;
  if (method == "random") {
    scheduler = "{type: fifo}";
  } else if (method == "asha_stopping") {
    scheduler = asha + "}";
  } else if (method == "asha_promotion") {
    scheduler = asha + ", mode: promotion}";
  } else if (method == "hyperband") {
    scheduler =
        "{type: hyperband, max_t: 50, grace_period: 1, reduction_factor: 3}";
  } else {  // tpe_asha
    scheduler = asha + "}";
    searcher = "tpe";
    char bounds[160];
    std::snprintf(bounds, sizeof bounds,
                  "search_space:\n  num_params: {type: loguniform, low: %.17g, "
                  "high: %.17g}\n",
                  setup.min_params, setup.max_params);
    space = bounds;
  }
  return "name: " + method + "-" + std::to_string(seed) +
         "\ncommand: \"true\"\nmetric: val_loss\nmode: min\ntime_attr: "
         "epoch\nnum_trials: 345\n" +
         space + "searcher: {type: " + searcher +
         ", seed: " + std::to_string(seed) + "}\nscheduler: " + scheduler +
         "\n";
}

// Busy seconds of the stored leases up to `until`, and trials started
// before `horizon`.
std::pair<double, int64_t> LeaseFigures(tuner::storage::TrialStore& store,
                                        tuner::storage::ExperimentId id,
                                        double until, double horizon) {
  auto leases = store.leases().List(id);
  if (!leases.ok()) Fail(leases.message());
  double busy = 0;
  std::map<tuner::core::TrialId, double> first_start;
  for (const auto& lease : leases.value()) {
    auto [it, fresh] = first_start.emplace(lease.trial, lease.acquired_at);
    if (!fresh) it->second = std::min(it->second, lease.acquired_at);
    if (lease.acquired_at > until) continue;
    busy +=
        std::min(lease.released_at.value_or(kInf), until) - lease.acquired_at;
  }
  int64_t started = 0;
  for (const auto& [trial, start] : first_start) started += start < horizon;
  return {busy, started};
}

SeedFigures RunSeed(const std::string& method, uint64_t seed, int workers,
                    const Setup& setup) {
  std::string yaml = MethodConfig(method, seed, setup);
  auto config = tuner::LoadConfigText(yaml, method + ".yaml", "/tmp", "/tmp");
  if (!config.ok()) Fail(config.message());
  auto store = tuner::storage::TrialStore::Open(":memory:");
  if (!store.ok()) Fail(store.message());
  tuner::sim::SimulationOptions options;
  options.workers = workers;
  options.epoch = 0;  // stored times are simulated seconds
  auto result = tuner::sim::Simulate(config.value(), "{}", setup.table,
                                     *store.value(), options);
  if (!result.ok()) Fail(method + ": " + result.message());
  SeedFigures figures;
  for (const auto& [t, best] : result.value().trajectory) {
    if (t > setup.horizon_s) break;
    if (!figures.time && best <= setup.target) figures.time = t;
  }
  for (double b : kBudgets) {
    std::optional<double> best;
    for (const auto& [t, value] : result.value().trajectory)
      if (t <= b * setup.e64_s) best = value;
    figures.best_at[b] = best;
  }
  auto [busy, started] =
      LeaseFigures(*store.value(), result.value().experiment,
                   figures.time.value_or(setup.horizon_s), setup.horizon_s);
  if (figures.time) figures.device = busy;
  figures.trials = started;
  return figures;
}

// statistics.median with nullopt as +inf; an infinite median is null.
nlohmann::json Median(std::vector<std::optional<double>> values) {
  std::vector<double> v;
  for (const auto& x : values) v.push_back(x.value_or(kInf));
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  double m = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  if (std::isinf(m) || std::isnan(m)) return nullptr;
  return m;
}

nlohmann::json Summarise(const std::vector<SeedFigures>& seeds) {
  std::vector<std::optional<double>> times, devices, trials;
  int reached = 0;
  for (const auto& s : seeds) {
    times.push_back(s.time);
    devices.push_back(s.device);
    trials.push_back(static_cast<double>(s.trials));
    reached += s.time.has_value();
  }
  nlohmann::json budgets = nlohmann::json::object();
  for (double b : kBudgets) {
    std::vector<std::optional<double>> at;
    for (const auto& s : seeds) at.push_back(s.best_at.at(b));
    char key[16];
    std::snprintf(key, sizeof key, "%g", b);
    std::string name = key;
    if (name.find('.') == std::string::npos) name += ".0";
    budgets[name] = Median(at);
  }
  return {{"reached", reached},
          {"median_time_to_target_s", Median(times)},
          {"median_device_s_to_target", Median(devices)},
          {"median_best_at_budget", budgets},
          {"median_trials_started", Median(trials)}};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Search quality on NAS-Bench-NLP, in simulated time"};
  std::string data = std::string(SOURCE_DIR) +
                     "/../shared/benchmarks/nasbench-nlp-wt2/nasbench-nlp-wt2";
  std::string table_path = data + ".jsonl",
              summary_path = data + ".summary.json";
  int seeds = 20, workers = 8;
  double horizon_factor = 1.5;
  std::vector<std::string> methods = {
      "random", "asha_stopping", "asha_promotion", "hyperband", "tpe_asha"};
  app.add_option("--table", table_path, "curve table (JSON lines)");
  app.add_option("--summary", summary_path, "the table's summary JSON");
  app.add_option("--seeds", seeds, "seeds 0..N-1")->check(CLI::Range(1, 1000));
  app.add_option("--workers", workers, "slots")->check(CLI::Range(1, 1024));
  app.add_option("--horizon-factor", horizon_factor, "H = factor * E64")
      ->check(CLI::Range(0.01, 100.0));
  app.add_option("--methods", methods, "which methods")
      ->delimiter(',')
      ->check(CLI::IsMember({"random", "asha_stopping", "asha_promotion",
                             "hyperband", "tpe_asha"}));
  CLI11_PARSE(app, argc, argv);

  Setup setup;
  ReadSummary(summary_path, setup);
  auto table = tuner::sim::ReadCurveTableFile(table_path, "epoch");
  if (!table.ok()) Fail(table.message());
  setup.table = std::move(table.value());
  FindParamRange(setup);
  setup.e64_s = 64 * setup.mean_s / workers;
  setup.horizon_s = horizon_factor * setup.e64_s;

  nlohmann::json out_methods = nlohmann::json::object();
  auto wall_start = std::chrono::steady_clock::now();
  for (const auto& method : methods) {
    std::vector<SeedFigures> per_seed;
    for (int seed = 0; seed < seeds; ++seed) {
      per_seed.push_back(RunSeed(method, seed, workers, setup));
      std::fprintf(stderr, "%s seed %d: %s s to target, %lld trials\n",
                   method.c_str(), seed,
                   per_seed.back().time
                       ? std::to_string(*per_seed.back().time).c_str()
                       : "never",
                   static_cast<long long>(per_seed.back().trials));
    }
    out_methods[method] = Summarise(per_seed);
  }
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                              wall_start)
                    .count();
  nlohmann::json out = {{"peer", "tuner"},      {"workers", workers},
                        {"seeds", seeds},       {"target", setup.target},
                        {"e64_s", setup.e64_s}, {"horizon_s", setup.horizon_s},
                        {"wall_s", wall},       {"methods", out_methods}};
  std::printf("%s\n", out.dump().c_str());
  return 0;
}
