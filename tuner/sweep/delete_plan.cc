// What deleting an experiment removes: its rows, its trial directories and
// checkpoints, and what a half-done delete left, each checked (the delete
// itself: experiment_delete.cc).
#include "tuner/sweep/delete_plan.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "core/printable.h"
#include "trial_runner/processes/local_runner.h"
#include "tuner/base/lexical_path.h"
#include "tuner/base/remove_tree.h"
#include "tuner/base/tuner_lock.h"
#include "tuner/config/config_loader.h"
#include "tuner/config/config_values.h"
#include "tuner/config/launch_spec.h"
#include "tuner/config/stored_config.h"
#include "tuner/config/trials_root.h"

namespace tuner {

namespace {

namespace fs = std::filesystem;

bool HasDotDot(const fs::path& path) {
  return std::any_of(path.begin(), path.end(),
                     [](const fs::path& part) { return part == ".."; });
}

// `path`, inside `root`, as the walk from `root` that removes it.
DoomedPath Below(const fs::path& root, const std::string& path) {
  return DoomedPath{root.string(),
                    fs::path(path).lexically_relative(root).string()};
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

// Whether there is anything at `path`, read lexically ("a/1/../sub" is
// "a/sub" even without a/1); a dangling link counts.
// Whether the trial folder `root` holds anything but the experiment's tuner
// lock (which a tuner or the service creates to hold the experiment).
bool HoldsMoreThanLock(const fs::path& root, const std::string& name) {
  std::string lock = fs::path(TunerLockPath(root.string(), name)).filename();
  std::error_code ec;
  for (fs::directory_iterator it(root, ec), end; !ec && it != end;
       it.increment(ec)) {
    if (it->path().filename() != lock) return true;
  }
  return false;
}

// Why the checkpoint dir `dir` of trial `trial_id` is not removed with
// its experiment: it is not the trial's own (WhyNotTrialOwned), not inside
// the folder it is walked from, or, while the database is not the file the
// experiment was created in (a copy, a restored backup, a crafted record),
// not inside the trial directory. Empty when it is removed.
std::string WhyLeft(const fs::path& dir, int64_t trial_id,
                    const std::string& trial_dir, const fs::path& root,
                    bool original) {
  std::string why = WhyNotTrialOwned(dir, trial_id, trial_dir);
  if (!why.empty()) return why;
  if (!Inside(dir, root)) return "not inside " + root.string();
  if (!original && !Inside(dir, trial_dir)) {
    return "this database is not the file the experiment was created in (a "
           "copy?): remove it yourself if it is this experiment's";
  }
  return "";
}

// Each trial's checkpoints.dir outside the paths found so far, when it is
// per trial and its own (WhyLeft); the others go to `left`, "path: why".
void AddCheckpointDirs(const storage::ExperimentRecord& experiment,
                       const std::vector<storage::TrialRecord>& trials,
                       const std::string& trials_root,
                       const std::string& db_path,
                       std::vector<DoomedPath>& paths,
                       std::vector<std::string>& left) {
  auto config = LoadStoredConfig(experiment.config_json, db_path);
  if (!config.ok() || !PerTrial(config.value().checkpoints.dir)) return;
  const std::string& templ = config.value().checkpoints.dir;
  fs::path root =
      CheckpointWalkRoot(templ, config.value().workdir, DbFolder(db_path));
  bool original = IsStoredInDatabase(experiment.config_json, db_path);
  std::vector<DoomedPath> found = paths;
  for (const auto& trial : trials) {
    TrialContext context;
    context.id = trial.id;
    context.params = &trial.params;
    context.trial_dir = trials_root + "/" + std::to_string(trial.id);
    fs::path dir = ExpandForTrial(config.value(), context, templ);
    if (!dir.is_absolute()) dir = fs::path(config.value().workdir) / dir;
    std::string why = WhyLeft(dir, trial.id, context.trial_dir, root, original);
    if (!why.empty()) {
      if (AnythingAt(dir)) left.push_back(dir.string() + ": " + why);
      continue;
    }
    std::string normal = NormalPath(dir).string();
    bool covered = std::any_of(found.begin(), found.end(), [&](auto& own) {
      return Inside(normal, own.path()) || normal == NormalPath(own.path());
    });
    if (!covered) paths.push_back(Below(root, normal));
  }
}

// The experiment's own files, all in the database's folder: its scoped
// root, or its legacy trial dirs; then its checkpoint dirs.
std::vector<DoomedPath> OwnPaths(
    const storage::ExperimentRecord& experiment,
    const std::vector<storage::TrialRecord>& trials,
    const std::string& trials_root, const std::string& db_path,
    std::vector<std::string>& left) {
  fs::path db_folder = DbFolder(db_path);
  std::vector<DoomedPath> paths;
  if (trials_root != LegacyTrialsRoot(db_path)) {
    paths.push_back(Below(db_folder, trials_root));
  } else {
    // Shared with other experiments: only its own trials.
    for (const auto& trial : trials) {
      paths.push_back(
          Below(db_folder, trials_root + "/" + std::to_string(trial.id)));
    }
  }
  AddCheckpointDirs(experiment, trials, trials_root, db_path, paths, left);
  return paths;
}

// The path a delete of `name` may remove for `path`, read from
// doomed_paths: one of `own` (what PlanDelete found from the rows), inside
// <db>.trials/<name>/, or the experiment's lock in the shared trials/.
std::optional<DoomedPath> MayRemoveDoomed(const std::string& path,
                                          const std::vector<DoomedPath>& own,
                                          const std::string& db_path,
                                          const std::string& name) {
  for (const auto& mine : own) {
    if (mine.path() == path) return mine;
  }
  if (HasDotDot(path)) return std::nullopt;
  std::string scoped = TrialsRootFor(db_path, name);
  fs::path normal = NormalPath(path);
  if (normal == NormalPath(scoped) || Inside(path, scoped) ||
      normal == NormalPath(TunerLockPath(LegacyTrialsRoot(db_path), name))) {
    fs::path folder = DbFolder(db_path);
    return DoomedPath{folder.string(),
                      normal.lexically_relative(NormalPath(folder)).string()};
  }
  return std::nullopt;
}

// The trials of `trials` whose shim still runs and writes in this
// project's trial folder (a copy's rows name the original's shims: those
// are not this experiment's to wait for).
std::vector<std::string> StillRunning(
    const std::vector<storage::TrialRecord>& trials,
    const std::string& trials_root) {
  std::vector<std::string> running;
  for (const auto& trial : trials) {
    if (trial.status != core::TrialStatus::kRunning) continue;
    std::optional<runner::SupervisorId> stored;
    if (trial.shim_pid && trial.shim_start) {
      stored = runner::SupervisorId{static_cast<pid_t>(*trial.shim_pid),
                                    *trial.shim_start};
    }
    std::string dir = trials_root + "/" + std::to_string(trial.id);
    pid_t pid = runner::FindLiveShim(
        stored, AttemptStatusPath(dir, static_cast<int>(trial.attempts)));
    if (pid > 0) {
      running.push_back("trial " + std::to_string(trial.id) +
                        " (its shim, pid " + std::to_string(pid) + ")");
    }
  }
  return running;
}

}  // namespace

bool AnythingAt(const fs::path& path) {
  std::error_code ec;
  return fs::symlink_status(NormalPath(path), ec).type() !=
         fs::file_type::not_found;
}

fs::path DbFolder(const std::string& db_path) {
  return fs::absolute(db_path).parent_path();
}

fs::path CheckpointWalkRoot(const std::string& templ,
                            const std::string& workdir,
                            const fs::path& trial_dirs_in) {
  if (templ.rfind("{trial_dir}", 0) == 0) return NormalPath(trial_dirs_in);
  fs::path written = fs::absolute(fs::path(workdir) / templ);
  fs::path root;
  for (const auto& part : written) {
    if (part.string().find('{') != std::string::npos) break;
    root /= part;
  }
  return NormalPath(root);
}

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

std::string DoomedPath::path() const {
  return (fs::path(root) / below).string();
}

core::Result<DeletePlan> PlanDelete(storage::TrialStore& store,
                                    const std::string& db_path,
                                    const std::string& name) {
  DeletePlan plan;
  auto doomed = store.experiments().DoomedPaths(name);
  if (!doomed.ok()) return doomed.error();
  auto found = store.experiments().Find(name);
  if (!found.ok()) return found.error();
  // Only a crafted row has a name that is no path component: no files,
  // not even the lock.
  auto root = found.value()
                  ? NamedTrialsRoot(found.value()->config_json, db_path, name)
                  : NamedTrialsRoot(db_path, name);
  bool named = root.ok();
  if (named) plan.trials_root = root.value();
  if (found.value()) {
    const auto& experiment = *found.value();
    plan.stored = true;
    auto trials = store.trials().List(experiment.id);
    if (!trials.ok()) return trials.error();
    plan.trials = static_cast<int64_t>(trials.value().size());
    if (named) {
      plan.paths = OwnPaths(experiment, trials.value(), plan.trials_root,
                            db_path, plan.left);
      std::string former =
          HoldsMoreThanLock(plan.trials_root, name)
              ? ""  // its trial folder came with it
              : FormerTrialsRoot(experiment.config_json, db_path, name);
      // A database moved alone: its trials may run where it was.
      plan.still_running = StillRunning(trials.value(), plan.trials_root);
      if (plan.still_running.empty() && !former.empty())
        plan.still_running = StillRunning(trials.value(), former);
      if (!former.empty()) {
        plan.left.push_back(former +
                            ": its trial folder where the database was (the "
                            "database was moved or copied without it)");
      }
    }
  }
  if (named) plan.lock_path = TunerLockPath(plan.trials_root, name);
  // The database is no authority: each doomed path is checked again.
  std::vector<DoomedPath> own = plan.paths;
  for (auto& path : doomed.value()) {
    auto allowed =
        named ? MayRemoveDoomed(path, own, db_path, name) : std::nullopt;
    if (!allowed) {
      plan.refused.push_back(path);
    } else if (std::none_of(plan.paths.begin(), plan.paths.end(),
                            [&](auto& p) { return p.path() == path; })) {
      plan.paths.push_back(*allowed);
    }
  }
  if (!plan.stored && plan.paths.empty() && plan.refused.empty()) {
    return core::NotFound("no experiment " + core::QuotedInput(name) + " in " +
                          db_path);
  }
  return plan;
}

}  // namespace tuner
