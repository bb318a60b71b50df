#include "tuner/sweep/experiment_lifecycle.h"

#include "core/printable.h"
#include "tuner/base/tuner_lock.h"
#include "tuner/config/config_loader.h"
#include "tuner/config/stored_config.h"
#include "tuner/config/trials_root.h"

namespace tuner {

namespace {

int64_t TrialCount(storage::TrialStore& store, storage::ExperimentId id) {
  auto counts = store.trials().Count(id);
  int64_t total = 0;
  if (counts.ok()) {
    for (const auto& [status, n] : counts.value()) total += n;
  }
  return total;
}

// InvalidArgument when the experiment searches a grid that its budget
// raised by `more` would pass: its searcher has no more configs to give.
core::Status RefuseSpentGrid(storage::TrialStore& store,
                             const storage::ExperimentRecord& experiment,
                             const ExperimentConfig& config, int64_t more) {
  if (config.searcher.type != core::SearcherType::kGrid) {
    return core::Status::Ok();
  }
  auto stored = store.experiments().TrialBudget(experiment.id);
  if (!stored.ok()) return stored.error();
  int64_t budget = stored.value().value_or(config.num_trials);
  int64_t grid = GridSize(config);
  if (budget <= grid && more <= grid - budget) return core::Status::Ok();
  std::string has = "experiment '" + experiment.name + "' searches a grid of " +
                    std::to_string(grid) + " combinations and its budget is " +
                    std::to_string(budget) + " trials";
  if (budget >= grid) {
    return core::InvalidArgument(has + ": it has no more configs to run");
  }
  return core::InvalidArgument(has + ": extend it by at most " +
                               std::to_string(grid - budget));
}

}  // namespace

core::Result<ExtendOutcome> ExtendExperiment(storage::TrialStore& store,
                                             const std::string& db_path,
                                             const std::string& name,
                                             int64_t more) {
  if (more < 1 || more > kMaxTrialBudget) {
    return core::InvalidArgument("--trials: expected 1 to " +
                                 std::to_string(kMaxTrialBudget) + ", got " +
                                 std::to_string(more));
  }
  auto found = store.experiments().Find(name);
  if (!found.ok()) return found.error();
  if (!found.value()) {
    return core::NotFound("no experiment " + core::QuotedInput(name) + " in " +
                          db_path);
  }
  const auto& experiment = *found.value();
  TUNER_RETURN_IF_ERROR(RefuseSimulated(name, experiment.config_json));
  auto config = LoadStoredConfig(experiment.config_json, db_path);
  if (!config.ok()) return config.error();
  TUNER_RETURN_IF_ERROR(
      RefuseSpentGrid(store, experiment, config.value(), more));
  auto budget = store.experiments().ExtendTrialBudget(
      experiment.id, config.value().num_trials, more, kMaxTrialBudget);
  if (!budget.ok()) {
    (void)store.Commit();  // ends the batch, which holds no write
    return budget.error();
  }
  ExtendOutcome outcome;
  outcome.budget = budget.value();
  auto status = store.experiments().Find(name);  // in the same batch
  TUNER_RETURN_IF_ERROR(store.Commit());
  outcome.status = status.ok() && status.value() ? status.value()->status
                                                 : experiment.status;
  outcome.trials = TrialCount(store, experiment.id);
  auto root = NamedTrialsRoot(experiment.config_json, db_path, name);
  util::LockState state;  // no lock is looked for by an unsafe name
  if (root.ok()) state = util::ProbeLock(TunerLockPath(root.value(), name));
  // The status was read in the batch that raised the budget: "running"
  // means the sweep had not yet written its end, and it reads the budget
  // once more in the batch that writes it (Sweep::CheckDone). A sweep that
  // has ended launches nothing, even while its tuner still holds the lock.
  outcome.running =
      state.held && outcome.status == core::ExperimentStatus::kRunning;
  outcome.lock_owner = state.owner;
  return outcome;
}

bool HasBudgetLeft(storage::TrialStore& store,
                   const storage::ExperimentRecord& experiment) {
  auto budget = store.experiments().TrialBudget(experiment.id);
  return budget.ok() && budget.value() &&
         *budget.value() > TrialCount(store, experiment.id);
}

}  // namespace tuner
