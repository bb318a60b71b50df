#include "tuner/config_sections.h"

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

void ReadTpeOptions(const Reader& r, const YAML::Node& node, const Path& path,
                    core::SearcherSpec& s) {
  bool tpe = s.type == core::SearcherType::kTpe;
  for (const char* key : {"n_startup", "n_candidates", "gamma"}) {
    if (node[key] && !tpe) Fail(node[key], path / key, "applies to tpe only");
  }
  if (auto n = node["n_startup"]) {
    s.n_startup = static_cast<int>(r.Int(n, path / "n_startup"));
    if (s.n_startup < 1) Fail(n, path / "n_startup", "must be >= 1");
  }
  if (auto n = node["n_candidates"]) {
    s.n_candidates = static_cast<int>(r.Int(n, path / "n_candidates"));
    if (s.n_candidates < 1) Fail(n, path / "n_candidates", "must be >= 1");
  }
  if (auto n = node["gamma"]) {
    s.gamma = r.Number(n, path / "gamma");
    if (s.gamma <= 0 || s.gamma >= 1)
      Fail(n, path / "gamma", "must be in (0, 1)");
  }
}

}  // namespace

void ReadSearcher(const Reader& r, const YAML::Node& node,
                  ExperimentConfig& c) {
  Path path("searcher");
  r.Map(node, path);
  r.Keys(node, path, {"type", "seed", "n_startup", "n_candidates", "gamma"});
  if (node["type"]) {
    c.searcher.type =
        r.Enum<core::SearcherType>(node["type"], path / "type",
                                   {{"random", core::SearcherType::kRandom},
                                    {"grid", core::SearcherType::kGrid},
                                    {"sobol", core::SearcherType::kSobol},
                                    {"tpe", core::SearcherType::kTpe}});
  }
  if (node["seed"]) {
    c.searcher.seed = static_cast<uint64_t>(r.Int(node["seed"], path / "seed"));
    c.seed_given = true;
  }
  ReadTpeOptions(r, node, path, c.searcher);
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
    s.brackets = static_cast<int>(r.Int(node["brackets"], path / "brackets"));
    if (s.brackets < 1)
      Fail(node["brackets"], path / "brackets", "must be >= 1");
  }
  if (node["min_samples"]) {
    s.min_samples =
        static_cast<int>(r.Int(node["min_samples"], path / "min_samples"));
    if (s.min_samples < 1) {
      Fail(node["min_samples"], path / "min_samples", "must be >= 1");
    }
  }
  if (node["mode"]) {
    s.promotion = r.Enum<bool>(node["mode"], path / "mode",
                               {{"stopping", false}, {"promotion", true}});
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
          "mode", "min_samples"});
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
  if ((rungs || s.max_t) && s.grace_period >= s.max_t.value_or(0) &&
      s.type != SchedulerType::kFifo) {
    Fail(node["grace_period"] ? node["grace_period"] : node,
         path / "grace_period",
         "must be below max_t (" + core::FormatDouble(s.max_t.value_or(0)) +
             ")");
  }
}

}  // namespace tuner::config
