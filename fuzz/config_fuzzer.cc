// Fuzz target: an experiment file through everything a submitted config
// reaches before its first trial: the loader (YAML parsing, every key's
// validation, placeholders, conditions), the JSON stored with the
// experiment and its reload (what `tuner serve` resumes on every start),
// the budget plan (`tuner plan`), and the searcher and scheduler built from
// it, asked for their first suggestions and bracket assignments. It must
// answer with a config or a one-line error, never crash, hang or throw.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "schedulers/factory.h"
#include "schedulers/plan.h"
#include "tuner/config/config_loader.h"
#include "tuner/config/stored_config.h"

namespace {

void Check(bool ok) {
  if (!ok) __builtin_trap();
}

// `tuner plan`'s numbers, encoded as the CLI and the API do.
void Plan(const tuner::ExperimentConfig& c) {
  auto plan = tuner::schedulers::PlanBudget(c.scheduler, c.num_trials);
  nlohmann::json j = {{"total_units", plan.total_units}};
  for (const auto& b : plan.brackets) {
    nlohmann::json rungs = nlohmann::json::array();
    for (const auto& r : b.rungs) rungs.push_back({r.milestone, r.trials});
    j["brackets"].push_back({{"trials", b.trials}, {"rungs", rungs}});
  }
  (void)j.dump();
}

void Schedule(const tuner::ExperimentConfig& c) {
  auto searcher = tuner::schedulers::MakeSearcher(c.searcher, c.space, c.mode);
  auto scheduler = tuner::schedulers::MakeTrialScheduler(c.scheduler);
  (void)scheduler->Milestones();
  for (int64_t i = 0; i < 4 && i < c.num_trials; ++i) {
    (void)searcher->Suggest(i);
    (void)scheduler->OnAdd(i + 1, i);
  }
  // Far along a saturated grid: index % size must stay defined.
  (void)searcher->Suggest(c.num_trials - 1);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  auto config = tuner::LoadConfigText(text, "fuzz.yaml", "/base", "/work");
  if (!config.ok()) {
    Check(config.message().find('\n') == std::string::npos);  // one line
    return 0;
  }
  const tuner::ExperimentConfig& c = config.value();
  // Stored with the experiment, then read back by a resume: it must load
  // again, to the same experiment.
  std::string stored = tuner::StoredConfigJson(c, text, "/base/fuzz.yaml",
                                               "/base", "/base/fuzz.db");
  auto again = tuner::LoadStoredConfig(stored, "");
  Check(again.ok());
  Check(again.value().name == c.name &&
        again.value().num_trials == c.num_trials &&
        again.value().searcher.seed == c.searcher.seed &&
        again.value().searcher.type == c.searcher.type &&
        again.value().scheduler.grace_period == c.scheduler.grace_period);
  Plan(c);
  Schedule(c);
  return 0;
}
