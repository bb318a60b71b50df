#include "tuner/config/config_sections.h"

#include <algorithm>
#include <cmath>

#include "schedulers/brackets.h"

namespace tuner::config {

namespace {

void CheckGridSpace(const YAML::Node& node, const Path& path,
                    const core::SearchSpace& space) {
  for (const auto& spec : space.params) {
    if (spec.distribution != core::Distribution::kGrid &&
        spec.distribution != core::Distribution::kChoice) {
      Fail(node["type"], path / "type",
           "grid search needs every parameter to be a grid or a choice; '" +
               spec.name + "' is not");
    }
    if (spec.when) {
      Fail(node["type"], path / "type",
           "grid search does not take conditional parameters; '" + spec.name +
               "' has `when`");
    }
  }
}

// A gp suggestion scores n_candidates points against max_points
// observations: O(n_candidates * max_points^2). Bounded so that the sweep's
// loop never waits long on one (about 0.1 s at the bound).
void CheckGpCost(const YAML::Node& node, const Path& path,
                 const core::SearcherSpec& s) {
  constexpr double kMaxCost = 1 << 28;  // 1,024 candidates x 512 points
  double candidates = s.n_candidates > 0 ? s.n_candidates : 1024;
  double cost = candidates * s.max_points * s.max_points;
  if (cost <= kMaxCost) return;
  const char* key = node["max_points"] ? "max_points" : "n_candidates";
  Fail(node[key], path / key,
       "n_candidates x max_points^2 is " + core::FormatDouble(cost) +
           ", at most 268435456 (e.g. 1024 candidates with 512 points): a "
           "suggestion would keep the sweep waiting");
}

void ReadModelOptions(const Reader& r, const YAML::Node& node, const Path& path,
                      core::SearcherSpec& s) {
  bool tpe = s.type == core::SearcherType::kTpe;
  bool gp = s.type == core::SearcherType::kGp;
  for (const char* key : {"n_startup", "n_candidates"}) {
    if (node[key] && !tpe && !gp)
      Fail(node[key], path / key, "applies to tpe and gp only");
  }
  if (node["gamma"] && !tpe)
    Fail(node["gamma"], path / "gamma", "applies to tpe only");
  for (const char* key : {"max_points", "model"}) {
    if (node[key] && !gp) Fail(node[key], path / key, "applies to gp only");
  }
  if (auto n = node["model"]) {
    s.joint =
        r.Enum<bool>(n, path / "model", {{"rung", false}, {"joint", true}});
  }
  if (auto n = node["max_points"]) {
    s.max_points = static_cast<int>(r.Int(n, path / "max_points", 2, 4096));
  }
  if (auto n = node["n_startup"]) {
    s.n_startup = static_cast<int>(r.Int(n, path / "n_startup", 1, 1'000'000));
  }
  if (auto n = node["n_candidates"]) {
    s.n_candidates =
        static_cast<int>(r.Int(n, path / "n_candidates", 1, 100'000));
  }
  if (auto n = node["gamma"]) {
    s.gamma = r.Number(n, path / "gamma");
    if (s.gamma <= 0 || s.gamma >= 1)
      Fail(n, path / "gamma", "must be in (0, 1)");
  }
  if (gp) CheckGpCost(node, path, s);
}

}  // namespace

core::SearcherType DefaultSearcherType(const core::SearchSpace& space) {
  return space.params.empty() ? core::SearcherType::kRandom
                              : core::SearcherType::kGp;
}

double DefaultGracePeriod(double max_t, double reduction_factor) {
  return std::max(1.0, max_t / std::pow(reduction_factor, 3));
}

void ReadSearcher(const Reader& r, const YAML::Node& node,
                  ExperimentConfig& c) {
  Path path("searcher");
  r.Map(node, path);
  r.Keys(node, path,
         {"type", "seed", "n_startup", "n_candidates", "gamma", "max_points",
          "model"});
  if (node["type"]) {
    c.searcher.type =
        r.Enum<core::SearcherType>(node["type"], path / "type",
                                   {{"random", core::SearcherType::kRandom},
                                    {"grid", core::SearcherType::kGrid},
                                    {"sobol", core::SearcherType::kSobol},
                                    {"tpe", core::SearcherType::kTpe},
                                    {"gp", core::SearcherType::kGp}});
    c.searcher_type_given = true;
  }
  if (node["seed"]) {
    c.searcher.seed =
        static_cast<uint64_t>(r.Int(node["seed"], path / "seed", 0, INT64_MAX));
    c.seed_given = true;
  }
  ReadModelOptions(r, node, path, c.searcher);
  if (c.searcher.type == core::SearcherType::kGrid)
    CheckGridSpace(node, path, c.space);
}

namespace {

void ReadSchedulerNumbers(const Reader& r, const YAML::Node& node,
                          const Path& path, core::SchedulerSpec& s) {
  if (node["max_t"]) s.max_t = r.Number(node["max_t"], path / "max_t");
  if (node["grace_period"]) {
    s.grace_period = r.Number(node["grace_period"], path / "grace_period");
  }
  if (node["reduction_factor"]) {
    s.reduction_factor =
        r.Number(node["reduction_factor"], path / "reduction_factor");
  }
  if (node["brackets"]) {
    s.brackets = static_cast<int>(
        r.Int(node["brackets"], path / "brackets", 1, schedulers::kMaxRungs));
  }
  if (node["min_samples"]) {
    s.min_samples = static_cast<int>(
        r.Int(node["min_samples"], path / "min_samples", 1, 1'000'000));
  }
  if (node["mode"]) {
    s.promotion = r.Enum<bool>(node["mode"], path / "mode",
                               {{"stopping", false}, {"promotion", true}});
  }
  if (node["pasha"]) {
    s.pasha = r.Bool(node["pasha"], path / "pasha");
    if (s.pasha && !s.promotion)
      Fail(node["pasha"], path / "pasha", "needs mode: promotion");
    if (s.pasha && s.brackets > 1)
      Fail(node["pasha"], path / "pasha", "takes one bracket (brackets: 1)");
  }
}

// Rungs are grace_period * reduction_factor^k below max_t; a factor near 1
// or a huge max_t would make millions of them.
void CheckRungCount(const YAML::Node& node, const Path& path,
                    const core::SchedulerSpec& s) {
  double levels = (std::log(*s.max_t) - std::log(s.grace_period)) /
                  std::log(s.reduction_factor);  // no overflow of the ratio
  if (levels > schedulers::kMaxRungs) {
    const char* key = node["reduction_factor"] ? "reduction_factor" : "max_t";
    Fail(node[key], path / key,
         "makes " + core::FormatDouble(std::ceil(levels)) +
             " rungs from grace_period to max_t; at most " +
             std::to_string(schedulers::kMaxRungs) +
             " (grace_period * reduction_factor^64 must reach max_t)");
  }
}

// Keys that only some scheduler types take.
void CheckApplicable(const YAML::Node& node, const Path& path,
                     const core::SchedulerSpec& s) {
  using core::SchedulerType;
  auto only = [&](const char* key, std::initializer_list<SchedulerType> types,
                  const char* which) {
    if (!node[key]) return;
    for (auto t : types)
      if (s.type == t) return;
    Fail(node[key], path / key, std::string("applies to ") + which + " only");
  };
  only("brackets", {SchedulerType::kAsha, SchedulerType::kHyperband},
       "asha and hyperband");
  only("mode", {SchedulerType::kAsha}, "asha");
  only("pasha", {SchedulerType::kAsha}, "asha");
  only("min_samples", {SchedulerType::kMedian}, "median");
  only("reduction_factor", {SchedulerType::kAsha, SchedulerType::kHyperband},
       "asha and hyperband");
}

}  // namespace

void ReadScheduler(const Reader& r, const YAML::Node& node,
                   ExperimentConfig& c) {
  using core::SchedulerType;
  Path path("scheduler");
  r.Map(node, path);
  r.Keys(node, path,
         {"type", "max_t", "grace_period", "reduction_factor", "brackets",
          "mode", "min_samples", "pasha"});
  auto& s = c.scheduler;
  s.type = r.Enum<SchedulerType>(r.Required(node, path, "type"), path / "type",
                                 {{"asha", SchedulerType::kAsha},
                                  {"hyperband", SchedulerType::kHyperband},
                                  {"median", SchedulerType::kMedian},
                                  {"fifo", SchedulerType::kFifo}});
  CheckApplicable(node, path, s);
  ReadSchedulerNumbers(r, node, path, s);
  bool rungs =
      s.type == SchedulerType::kAsha || s.type == SchedulerType::kHyperband;
  std::string type = node["type"].Scalar();
  if (rungs && !s.max_t) Fail(node, path / "max_t", type + " needs max_t");
  if (s.max_t && *s.max_t <= 0)
    Fail(node["max_t"], path / "max_t", "must be > 0");
  if (s.grace_period <= 0) {
    Fail(node["grace_period"], path / "grace_period", "must be > 0");
  }
  if (s.reduction_factor <= 1) {
    Fail(node["reduction_factor"], path / "reduction_factor", "must be > 1");
  }
  c.grace_period_given = static_cast<bool>(node["grace_period"]);
  // max_t and reduction_factor are valid here; the default is then below
  // max_t unless max_t <= 1, where grace 1 fails as it always has.
  if (rungs && !c.grace_period_given)
    s.grace_period = DefaultGracePeriod(*s.max_t, s.reduction_factor);
  if ((rungs || s.max_t) && s.grace_period >= s.max_t.value_or(0) &&
      s.type != SchedulerType::kFifo) {
    Fail(node["grace_period"] ? node["grace_period"] : node,
         path / "grace_period",
         "must be below max_t (" + core::FormatDouble(s.max_t.value_or(0)) +
             ")");
  }
  auto at_most = [&](const char* key, double time) {
    if (time > kMaxTimeUnits) {
      Fail(node[key], path / key,
           "must be <= " + core::FormatDouble(kMaxTimeUnits));
    }
  };
  at_most("max_t", s.max_t.value_or(0));
  at_most("grace_period", s.grace_period);
  if (rungs) CheckRungCount(node, path, s);  // of bounded times
}

}  // namespace tuner::config
