// Search quality on real learning curves: replays a curve table (by
// default NAS-Bench-NLP WikiText-2, ../shared/benchmarks/nasbench-nlp-wt2;
// also the six LCBench tables of ../shared/benchmarks/yahpo-lcbench)
// through `tuner simulate`'s engine (the real Sweep, scheduler, searcher
// and an in-memory SQLite store on a simulated clock) for several methods
// and prints one JSON object with the figures
// bench/search_quality_optuna.py prints for its peer.
//
// Every method is an experiment config: the search space of --space, the
// table's metric and mode, time_attr, num_trials = the table's rows,
// max_t = the table's last time_attr value, searcher seed = the seed; see
// kMethods. A method the engine refuses (a config error, a failed
// simulation) is reported as {"error": "..."} and the others go on.
//
// Per seed: time to the target T (the summary's expected best final metric
// of random search over 64 whole trainings) = the first trajectory point
// that reaches T (<= T under mode min, >= T under max) at or before the
// horizon H = horizon_factor * E64, E64 = 64 * mean run seconds / workers;
// device seconds until then (the stored leases); the best at 0.25, 0.5,
// 1.0 x E64; trials started before H. Medians over seeds as Python's
// statistics.median, unreached = +inf, an infinite median printed as null.
// Also fastest_target_s: the least run time of a row that reaches T, a
// floor no method beats (null where no row reaches T).

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "bench/search_quality_setup.h"
#include "storage/trial_store.h"
#include "tuner/config/config_loader.h"
#include "tuner/sim/curve_table.h"
#include "tuner/sim/simulation.h"

namespace {

using tuner::bench::ApplyDefaults;
using tuner::bench::Fail;
using tuner::bench::Options;
using tuner::bench::ReadSetup;
using tuner::bench::Setup;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kBudgets[] = {0.25, 0.5, 1.0};

// A method: the searcher and scheduler of its config. In `scheduler`, {M}
// stands for max_t, {G} for max_t / 27 and {G9} for max_t / 9. An empty
// `searcher` leaves the engine's default type.
struct Method {
  const char* name;
  const char* searcher;
  const char* scheduler;
  bool empty_space = false;  // search_space: {} (rows without replacement)
};

constexpr Method kMethods[] = {
    {"random", "random", "{type: fifo}"},
    {"random_rows", "random", "{type: fifo}", true},
    {"asha_stopping", "random",
     "{type: asha, max_t: {M}, grace_period: 1, reduction_factor: 3}"},
    {"asha_promotion", "random",
     "{type: asha, max_t: {M}, grace_period: 1, reduction_factor: 3, "
     "mode: promotion}"},
    {"hyperband", "random",
     "{type: hyperband, max_t: {M}, grace_period: 1, reduction_factor: 3}"},
    {"tpe_asha", "tpe",
     "{type: asha, max_t: {M}, grace_period: 1, reduction_factor: 3}"},
    {"gp_asha", "gp",
     "{type: asha, max_t: {M}, grace_period: 1, reduction_factor: 3}"},
    {"gp_asha_promotion", "gp",
     "{type: asha, max_t: {M}, grace_period: 1, reduction_factor: 3, "
     "mode: promotion}"},
    {"pasha", "random",
     "{type: asha, max_t: {M}, grace_period: 1, reduction_factor: 3, "
     "mode: promotion, pasha: true}"},
    {"gp_pasha", "gp",
     "{type: asha, max_t: {M}, grace_period: 1, reduction_factor: 3, "
     "mode: promotion, pasha: true}"},
    {"gp_joint_asha", "gp, model: joint",
     "{type: asha, max_t: {M}, grace_period: 1, reduction_factor: 3}"},
    // The first rung at max_t / 27 (three rungs below max_t), not at 1.
    {"asha_stopping_r3", "random",
     "{type: asha, max_t: {M}, grace_period: {G}, reduction_factor: 3}"},
    {"tpe_asha_r3", "tpe",
     "{type: asha, max_t: {M}, grace_period: {G}, reduction_factor: 3}"},
    {"gp_asha_r3", "gp",
     "{type: asha, max_t: {M}, grace_period: {G}, reduction_factor: 3}"},
    {"gp_joint_asha_r3", "gp, model: joint",
     "{type: asha, max_t: {M}, grace_period: {G}, reduction_factor: 3}"},
    {"gp_asha_promotion_r3", "gp",
     "{type: asha, max_t: {M}, grace_period: {G}, reduction_factor: 3, "
     "mode: promotion}"},
    // The first rung at max_t / 9 (two rungs below max_t).
    {"asha_stopping_r2", "random",
     "{type: asha, max_t: {M}, grace_period: {G9}, reduction_factor: 3}"},
    {"gp_asha_r2", "gp",
     "{type: asha, max_t: {M}, grace_period: {G9}, reduction_factor: 3}"},
    {"gp_asha_promotion_r2", "gp",
     "{type: asha, max_t: {M}, grace_period: {G9}, reduction_factor: 3, "
     "mode: promotion}"},
    {"default", "", "{type: asha, max_t: {M}}"},
    // Train everything one epoch, continue the top 1/max_t to max_t.
    {"one_epoch_topk", "random",
     "{type: asha, max_t: {M}, grace_period: 1, reduction_factor: {M}, "
     "mode: promotion}"},
};

struct SeedFigures {
  std::optional<double> time, device;
  std::map<double, std::optional<double>> best_at;
  int64_t trials = 0;
  double wall_s = 0;
};

std::string Number(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", x);
  return text;
}

const Method& FindMethod(const std::string& name) {
  for (const auto& m : kMethods)
    if (name == m.name) return m;
  Fail("no method " + name);
}

// The experiment's YAML for a method and seed. The space file comes first,
// so that an error in it names its own line.
std::string MethodConfig(const Method& m, uint64_t seed, const Setup& setup) {
  std::string scheduler = m.scheduler;
  for (auto [name, value] : {std::pair{"{M}", setup.max_t},
                             {"{G}", setup.max_t / 27},
                             {"{G9}", setup.max_t / 9}}) {
    std::string key(name);
    for (size_t at; (at = scheduler.find(key)) != std::string::npos;)
      scheduler.replace(at, key.size(), Number(value));
  }
  std::string searcher = "{seed: " + std::to_string(seed);
  if (*m.searcher) searcher += ", type: " + std::string(m.searcher);
  std::string space = m.empty_space ? "search_space: {}\n" : setup.space_text;
  if (!space.empty() && space.back() != '\n') space += '\n';
  return space + "name: " + m.name + "-" + std::to_string(seed) +
         "\ncommand: \"true\"\nmetric: " + setup.metric +
         "\nmode: " + (setup.maximise ? "max" : "min") +
         "\ntime_attr: " + setup.time_attr +
         "\nnum_trials: " + std::to_string(setup.table.rows.size()) +
         "\nsearcher: " + searcher + "}\nscheduler: " + scheduler + "\n";
}

// Fails unless the space loads and every one of its parameters is a key
// of some row's config.
void CheckSpace(const std::string& path, const Setup& setup) {
  std::string yaml = MethodConfig(kMethods[0], 0, setup);
  auto config = tuner::LoadConfigText(yaml, path, "/tmp", "/tmp");
  if (!config.ok()) Fail(config.message());
  for (const auto& spec : config.value().space.params) {
    bool found = std::any_of(
        setup.table.rows.begin(), setup.table.rows.end(),
        [&](const auto& row) { return row.config.contains(spec.name); });
    if (!found)
      Fail(path + ": no row of " + setup.table.source + " has config." +
           spec.name);
  }
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

// The seed's figures from a finished simulation's trajectory and leases.
SeedFigures Score(const tuner::sim::SimulationResult& result,
                  tuner::storage::TrialStore& store, const Setup& setup) {
  SeedFigures figures;
  for (const auto& [t, best] : result.trajectory) {
    if (t > setup.horizon_s) break;
    bool reached = setup.maximise ? best >= setup.target : best <= setup.target;
    if (reached) {
      figures.time = t;
      break;
    }
  }
  for (double b : kBudgets) {
    std::optional<double> best;
    for (const auto& [t, value] : result.trajectory)
      if (t <= b * setup.e64_s) best = value;
    figures.best_at[b] = best;
  }
  auto [busy, started] =
      LeaseFigures(store, result.experiment,
                   figures.time.value_or(setup.horizon_s), setup.horizon_s);
  if (figures.time) figures.device = busy;
  figures.trials = started;
  return figures;
}

// One simulation; an error (the config refused, the simulation failed)
// is returned as its message.
tuner::core::Result<SeedFigures> RunSeed(const Method& method, uint64_t seed,
                                         int workers, const Setup& setup) {
  auto wall_start = std::chrono::steady_clock::now();
  std::string yaml = MethodConfig(method, seed, setup);
  std::string origin = std::string(method.name) + ".yaml";
  auto config = tuner::LoadConfigText(yaml, origin, "/tmp", "/tmp");
  if (!config.ok()) return config.error();
  auto store = tuner::storage::TrialStore::Open(":memory:");
  if (!store.ok()) Fail(store.message());
  tuner::sim::SimulationOptions options;
  options.workers = workers;
  options.epoch = 0;  // stored times are simulated seconds
  // Nothing past the horizon is scored: the simulation ends there.
  options.until_s = setup.horizon_s * (1 + 1e-9);
  auto result = tuner::sim::Simulate(config.value(), "{}", setup.table,
                                     *store.value(), options);
  if (!result.ok()) return result.error();
  if (!result.value().error.empty())
    return tuner::core::Internal(result.value().error);
  SeedFigures figures = Score(result.value(), *store.value(), setup);
  figures.wall_s = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - wall_start)
                       .count();
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
  double wall = 0;
  for (const auto& s : seeds) {
    times.push_back(s.time);
    devices.push_back(s.device);
    trials.push_back(static_cast<double>(s.trials));
    reached += s.time.has_value();
    wall += s.wall_s;
  }
  nlohmann::json budgets = nlohmann::json::object();
  for (double b : kBudgets) {
    std::vector<std::optional<double>> at;
    for (const auto& s : seeds) at.push_back(s.best_at.at(b));
    std::string name = Number(b);
    if (name.find('.') == std::string::npos) name += ".0";
    budgets[name] = Median(at);
  }
  return {{"reached", reached},
          {"median_time_to_target_s", Median(times)},
          {"median_device_s_to_target", Median(devices)},
          {"median_best_at_budget", budgets},
          {"median_trials_started", Median(trials)},
          {"mean_wall_s_per_simulation", wall / seeds.size()}};
}

// All seeds of one method: its summary, or {"error": ...} at the first
// seed that fails.
nlohmann::json RunMethod(const std::string& name, const Options& o,
                         const Setup& setup) {
  const Method& method = FindMethod(name);
  std::vector<SeedFigures> per_seed;
  for (int seed = 0; seed < o.seeds; ++seed) {
    auto figures = RunSeed(method, seed, o.workers, setup);
    if (!figures.ok()) {
      std::string why =
          "seed " + std::to_string(seed) + ": " + figures.message();
      std::fprintf(stderr, "%s: error: %s\n", name.c_str(), why.c_str());
      return {{"error", why}};
    }
    per_seed.push_back(figures.value());
    const auto& f = per_seed.back();
    std::fprintf(stderr, "%s seed %d: %s s to target, %lld trials, %.2f s\n",
                 name.c_str(), seed, f.time ? Number(*f.time).c_str() : "never",
                 static_cast<long long>(f.trials), f.wall_s);
  }
  nlohmann::json summary = Summarise(per_seed);
  std::fprintf(stderr, "%s: reached the target in %d of %d seeds\n",
               name.c_str(), summary["reached"].get<int>(), o.seeds);
  return summary;
}

Options ParseOptions(int argc, char** argv) {
  CLI::App app{"Search quality on a curve table, in simulated time"};
  Options o;
  o.table = std::string(SOURCE_DIR) +
            "/../shared/benchmarks/nasbench-nlp-wt2/nasbench-nlp-wt2.jsonl";
  std::vector<std::string> names;
  for (const auto& m : kMethods) names.push_back(m.name);
  o.methods = names;
  app.add_option("--table", o.table, "curve table (.jsonl or .jsonl.xz)");
  app.add_option("--summary", o.summary,
                 "its summary (default: X.summary.json beside X.jsonl)");
  app.add_option("--space", o.space,
                 "YAML file with a search_space mapping (default: "
                 "bench/spaces/, by the table's name)");
  app.add_option("--metric", o.metric, "the metric (default by table)");
  app.add_option("--mode", o.mode, "min or max (default by table)")
      ->check(CLI::IsMember({"min", "max"}));
  app.add_option("--time-attr", o.time_attr, "the step's key")
      ->capture_default_str();
  app.add_option("--seeds", o.seeds, "seeds 0..N-1")
      ->check(CLI::Range(1, 1000));
  app.add_option("--workers", o.workers, "slots")->check(CLI::Range(1, 1024));
  app.add_option("--horizon-factor", o.horizon_factor, "H = factor * E64")
      ->check(CLI::Range(0.01, 100.0));
  app.add_option("--methods", o.methods, "which methods, comma-separated")
      ->delimiter(',')
      ->check(CLI::IsMember(names));
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    std::exit(app.exit(e));
  } catch (const CLI::ParseError& e) {
    Fail(e.what());
  }
  ApplyDefaults(o);
  return o;
}

Setup MakeSetup(const Options& o) {
  Setup setup = ReadSetup(o);
  CheckSpace(o.space, setup);
  return setup;
}

}  // namespace

int main(int argc, char** argv) {
  Options o = ParseOptions(argc, argv);
  Setup setup = MakeSetup(o);
  nlohmann::ordered_json methods = nlohmann::ordered_json::object();
  auto wall_start = std::chrono::steady_clock::now();
  for (const auto& name : o.methods) methods[name] = RunMethod(name, o, setup);
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                              wall_start)
                    .count();
  nlohmann::ordered_json out = {
      {"peer", "tuner"},
      {"table", o.table},
      {"space", o.space},
      {"metric", o.metric},
      {"mode", o.mode},
      {"time_attr", o.time_attr},
      {"max_t", setup.max_t},
      {"rows", setup.table.rows.size()},
      {"workers", o.workers},
      {"seeds", o.seeds},
      {"target", setup.target},
      {"e64_s", setup.e64_s},
      {"horizon_s", setup.horizon_s},
      {"fastest_target_s", std::isfinite(setup.fastest_target_s)
                               ? nlohmann::ordered_json(setup.fastest_target_s)
                               : nlohmann::ordered_json()},
      {"wall_s", wall},
      {"methods", methods}};
  std::printf("%s\n", out.dump().c_str());
  return 0;
}
