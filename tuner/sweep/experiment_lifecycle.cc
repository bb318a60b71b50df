#include "tuner/sweep/experiment_lifecycle.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "tuner/base/tuner_lock.h"
#include "tuner/config/config_loader.h"
#include "tuner/config/launch_spec.h"
#include "tuner/config/stored_config.h"

namespace tuner {

namespace {

namespace fs = std::filesystem;

int64_t TrialCount(storage::TrialStore& store, storage::ExperimentId id) {
  auto counts = store.CountTrials(id);
  int64_t total = 0;
  if (counts.ok()) {
    for (const auto& [status, n] : counts.value()) total += n;
  }
  return total;
}

// Without `.`, doubled or trailing slashes.
std::string Normal(const fs::path& path) {
  fs::path normal = path.lexically_normal();
  if (normal.has_relative_path() && normal.filename().empty()) {
    normal = normal.parent_path();
  }
  return normal.string();
}

// Strictly inside `root`, both lexically normalised.
bool Inside(const fs::path& path, const fs::path& root) {
  auto rel = fs::path(Normal(path)).lexically_relative(Normal(root));
  return !rel.empty() && *rel.begin() != ".." && rel != ".";
}

bool HasDotDot(const fs::path& path) {
  return std::any_of(path.begin(), path.end(),
                     [](const fs::path& part) { return part == ".."; });
}

bool PerTrial(const std::string& templ) {
  return templ.find("{trial_id}") != std::string::npos ||
         templ.find("{trial_dir}") != std::string::npos;
}

// A component that is the trial's id, alone (7) or with non-digits around
// it (ckpt_7), so that 17 or 2070 never count for trial 7.
bool NamesTrial(const std::string& part, const std::string& id) {
  for (size_t at = part.find(id); at != std::string::npos;
       at = part.find(id, at + 1)) {
    bool before =
        at == 0 || !std::isdigit(static_cast<unsigned char>(part[at - 1]));
    size_t end = at + id.size();
    bool after = end == part.size() ||
                 !std::isdigit(static_cast<unsigned char>(part[end]));
    if (before && after) return true;
  }
  return false;
}

// Each trial's checkpoints.dir outside `roots`, when it is per trial and
// its own (WhyNotTrialOwned); the others go to `left`, "path: why".
void AddCheckpointDirs(const storage::ExperimentRecord& experiment,
                       const std::vector<storage::TrialRecord>& trials,
                       const std::string& trials_root,
                       std::vector<std::string>& paths,
                       std::vector<std::string>& left) {
  auto config = LoadStoredConfig(experiment.config_json);
  if (!config.ok() || !PerTrial(config.value().checkpoints.dir)) return;
  std::vector<std::string> roots = paths;
  for (const auto& trial : trials) {
    TrialContext context;
    context.id = trial.id;
    context.params = &trial.params;
    context.trial_dir = trials_root + "/" + std::to_string(trial.id);
    fs::path dir =
        ExpandForTrial(config.value(), context, config.value().checkpoints.dir);
    if (!dir.is_absolute()) dir = fs::path(config.value().workdir) / dir;
    std::string why = WhyNotTrialOwned(dir, trial.id, context.trial_dir);
    if (!why.empty()) {
      left.push_back(dir.string() + ": " + why);
      continue;
    }
    std::string normal = Normal(dir);
    bool covered = std::any_of(roots.begin(), roots.end(), [&](auto& root) {
      return Inside(normal, root) || normal == Normal(root);
    });
    if (!covered) paths.push_back(normal);
  }
}

// The experiment's own files: its scoped root, or its legacy trial dirs.
std::vector<std::string> OwnPaths(
    const storage::ExperimentRecord& experiment,
    const std::vector<storage::TrialRecord>& trials,
    const std::string& trials_root, const std::string& db_path,
    std::vector<std::string>& left) {
  std::vector<std::string> paths;
  bool legacy = fs::path(trials_root).lexically_normal() ==
                fs::path(LegacyTrialsRoot(db_path)).lexically_normal();
  if (!legacy && fs::path(trials_root).filename() == experiment.name) {
    paths.push_back(trials_root);
  } else {
    // Shared with other experiments: only its own trials and lock.
    for (const auto& trial : trials) {
      paths.push_back(trials_root + "/" + std::to_string(trial.id));
    }
    paths.push_back(TunerLockPath(trials_root, experiment.name));
  }
  AddCheckpointDirs(experiment, trials, trials_root, paths, left);
  return paths;
}

// Whether a path read from doomed_paths is one a delete of `name` may
// remove now: one of `own` (what PlanDelete found from the rows), inside
// <db>.trials/<name>/, or the experiment's lock in the shared trials/.
bool MayRemoveDoomed(const std::string& path,
                     const std::vector<std::string>& own,
                     const std::string& db_path, const std::string& name) {
  if (HasDotDot(path)) return false;
  if (std::find(own.begin(), own.end(), path) != own.end()) return true;
  std::string scoped = TrialsRootFor(db_path, name);
  return Normal(path) == Normal(scoped) || Inside(path, scoped) ||
         Normal(path) == Normal(TunerLockPath(LegacyTrialsRoot(db_path), name));
}

std::string LockHolder(const std::string& lock_path) {
  runner::LockState state = runner::ProbeLock(lock_path);
  if (state.owner.rfind("server=", 0) == 0) {
    return "the service at " + state.owner.substr(7, state.owner.find(' ') - 7);
  }
  return state.owner.empty() ? "another tuner"
                             : "a tuner (" + state.owner + ")";
}

// InvalidArgument when the experiment searches a grid that its budget
// raised by `more` would pass: its searcher has no more configs to give.
core::Status RefuseSpentGrid(storage::TrialStore& store,
                             const storage::ExperimentRecord& experiment,
                             const ExperimentConfig& config, int64_t more) {
  if (config.searcher.type != core::SearcherType::kGrid) {
    return core::Status::Ok();
  }
  auto stored = store.TrialBudget(experiment.id);
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

std::string WhyNotTrialOwned(const std::filesystem::path& dir, int64_t trial_id,
                             const std::string& trial_dir) {
  if (HasDotDot(dir)) return "it has a '..' component";
  if (Inside(dir, trial_dir)) return "";
  std::string id = std::to_string(trial_id);
  fs::path relative = dir.lexically_normal().relative_path();
  for (const auto& part : relative) {
    if (NamesTrial(part.string(), id)) return "";
  }
  return "no component of it names trial " + id;
}

core::Result<DeletePlan> PlanDelete(storage::TrialStore& store,
                                    const std::string& db_path,
                                    const std::string& name) {
  DeletePlan plan;
  auto doomed = store.DoomedPaths(name);
  if (!doomed.ok()) return doomed.error();
  plan.trials_root = TrialsRootFor(db_path, name);
  auto found = store.FindExperiment(name);
  if (!found.ok()) return found.error();
  if (found.value()) {
    const auto& experiment = *found.value();
    plan.stored = true;
    plan.trials_root = StoredTrialsRoot(experiment.config_json, db_path);
    auto trials = store.ListTrials(experiment.id);
    if (!trials.ok()) return trials.error();
    plan.trials = static_cast<int64_t>(trials.value().size());
    plan.paths = OwnPaths(experiment, trials.value(), plan.trials_root, db_path,
                          plan.left);
  }
  plan.lock_path = TunerLockPath(plan.trials_root, name);
  // The database is no authority: each doomed path is checked again.
  std::vector<std::string> own = plan.paths;
  for (auto& path : doomed.value()) {
    if (!MayRemoveDoomed(path, own, db_path, name)) {
      plan.refused.push_back(path);
    } else if (std::find(plan.paths.begin(), plan.paths.end(), path) ==
               plan.paths.end()) {
      plan.paths.push_back(path);
    }
  }
  if (!plan.stored && plan.paths.empty() && plan.refused.empty()) {
    return core::NotFound("no experiment '" + name + "' in " + db_path);
  }
  return plan;
}

core::Result<DeleteOutcome> DeleteExperiment(storage::TrialStore& store,
                                             const std::string& db_path,
                                             const std::string& name) {
  auto plan = PlanDelete(store, db_path, name);
  if (!plan.ok()) return plan.error();
  DeleteOutcome outcome;
  outcome.trials = plan.value().trials;
  outcome.left = plan.value().left;
  // Held while it deletes: no tuner takes the experiment up meanwhile.
  auto lock = HoldTunerLock(plan.value().lock_path, CliOwnerText());
  if (!lock) {
    return core::AlreadyExists("experiment '" + name + "' is running in " +
                               LockHolder(plan.value().lock_path) +
                               "; stop it first: tuner stop " + name);
  }
  if (plan.value().stored) {
    auto found = store.FindExperiment(name);
    if (!found.ok()) return found.error();
    if (found.value()) {
      TUNER_RETURN_IF_ERROR(
          store.DeleteExperiment(found.value()->id, name, plan.value().paths));
      TUNER_RETURN_IF_ERROR(store.Commit());
    }
  }
  for (const auto& path : plan.value().paths) {
    std::error_code ec;
    fs::remove_all(path, ec);  // removes a symlink, never what it points at
    if (ec) {
      outcome.failed.push_back(path + ": " + ec.message());
      continue;
    }
    ++outcome.removed;
    TUNER_RETURN_IF_ERROR(store.ForgetDoomedPath(path));
  }
  for (const auto& path : plan.value().refused) {
    outcome.left.push_back(path + ": not a path of this experiment's");
    TUNER_RETURN_IF_ERROR(store.ForgetDoomedPath(path));
  }
  TUNER_RETURN_IF_ERROR(store.Commit());
  return outcome;
}

core::Result<ExtendOutcome> ExtendExperiment(storage::TrialStore& store,
                                             const std::string& db_path,
                                             const std::string& name,
                                             int64_t more) {
  if (more < 1 || more > kMaxTrialBudget) {
    return core::InvalidArgument("--trials: expected 1 to " +
                                 std::to_string(kMaxTrialBudget) + ", got " +
                                 std::to_string(more));
  }
  auto found = store.FindExperiment(name);
  if (!found.ok()) return found.error();
  if (!found.value()) {
    return core::NotFound("no experiment '" + name + "' in " + db_path);
  }
  const auto& experiment = *found.value();
  TUNER_RETURN_IF_ERROR(RefuseSimulated(name, experiment.config_json));
  auto config = LoadStoredConfig(experiment.config_json);
  if (!config.ok()) return config.error();
  TUNER_RETURN_IF_ERROR(
      RefuseSpentGrid(store, experiment, config.value(), more));
  auto budget = store.ExtendTrialBudget(
      experiment.id, config.value().num_trials, more, kMaxTrialBudget);
  if (!budget.ok()) {
    (void)store.Commit();  // ends the batch, which holds no write
    return budget.error();
  }
  ExtendOutcome outcome;
  outcome.budget = budget.value();
  auto status = store.FindExperiment(name);  // in the same batch
  TUNER_RETURN_IF_ERROR(store.Commit());
  outcome.status = status.ok() && status.value() ? status.value()->status
                                                 : experiment.status;
  outcome.trials = TrialCount(store, experiment.id);
  std::string lock =
      TunerLockPath(StoredTrialsRoot(experiment.config_json, db_path), name);
  runner::LockState state = runner::ProbeLock(lock);
  // The status was read in the batch that raised the budget: "running"
  // means the sweep had not yet written its end, and it reads the budget
  // once more in the batch that writes it (Sweep::CheckDone). A sweep that
  // has ended launches nothing, even while its tuner still holds the lock.
  outcome.running = state.held && outcome.status == "running";
  outcome.lock_owner = state.owner;
  return outcome;
}

bool HasBudgetLeft(storage::TrialStore& store,
                   const storage::ExperimentRecord& experiment) {
  auto budget = store.TrialBudget(experiment.id);
  return budget.ok() && budget.value() &&
         *budget.value() > TrialCount(store, experiment.id);
}

}  // namespace tuner
