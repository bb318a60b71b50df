// Deleting an experiment: its rows, then its files, each walked from a
// trusted folder without following links (what it removes: delete_plan.cc).
#include <algorithm>
#include <filesystem>

#include "tuner/base/remove_tree.h"
#include "tuner/base/tuner_lock.h"
#include "tuner/sweep/experiment_lifecycle.h"

namespace tuner {

namespace {

namespace fs = std::filesystem;

std::string LockHolder(const std::string& lock_path) {
  util::LockState state = util::ProbeLock(lock_path);
  LockOwner owner = ParseLockOwner(state.owner);
  if (!owner.server_url.empty()) return "the service at " + owner.server_url;
  return state.owner.empty() ? "another tuner"
                             : "a tuner (" + state.owner + ")";
}

// Removes each of `plan`'s paths, forgetting those removed, absent or
// behind a link; `removed` counts only those that were there.
core::Status RemovePaths(storage::TrialStore& store, const DeletePlan& plan,
                         DeleteOutcome& outcome) {
  for (const auto& doomed : plan.paths) {
    TreeRemoval removal = RemoveTreeBelow(doomed.root, doomed.below);
    if (removal.kind == TreeRemoval::kFailed) {
      outcome.failed.push_back(removal.why);
      continue;
    }
    if (removal.kind == TreeRemoval::kRemoved) ++outcome.removed;
    if (removal.kind == TreeRemoval::kLink) outcome.left.push_back(removal.why);
    TUNER_RETURN_IF_ERROR(store.experiments().ForgetDoomedPath(doomed.path()));
  }
  for (const auto& path : plan.refused) {
    // Named once, and only when it is there.
    bool named = std::any_of(
        outcome.left.begin(), outcome.left.end(),
        [&](const std::string& left) { return left.starts_with(path + ": "); });
    if (!named && AnythingAt(path))
      outcome.left.push_back(path + ": not a path of this experiment's");
    TUNER_RETURN_IF_ERROR(store.experiments().ForgetDoomedPath(path));
  }
  return core::Status::Ok();
}

// The experiment's tuner lock while it is deleted, and whether the delete
// created its file.
struct DeleteLock {
  std::optional<util::LockFile> file;
  bool created = false;
};

// Takes the lock at `lock_path`, so that no tuner takes the experiment up
// meanwhile; kAlreadyExists naming the holder. A tuner running it holds it
// in its folder: without that folder none runs it, and nothing is created.
core::Result<DeleteLock> LockForDelete(const std::string& lock_path,
                                       const std::string& name) {
  DeleteLock lock;
  std::error_code ec;
  if (!fs::is_directory(fs::path(lock_path).parent_path(), ec)) return lock;
  lock.created =
      fs::symlink_status(lock_path, ec).type() == fs::file_type::not_found;
  lock.file = HoldTunerLock(lock_path, CliOwnerText());
  if (!lock.file) {
    return core::AlreadyExists("experiment '" + name + "' is running in " +
                               LockHolder(lock_path) +
                               "; stop it first: tuner stop " + name);
  }
  return lock;
}

// Removes the lock file once the experiment is deleted (most often it went
// with its trial folder): the one in the shared trials/ of an experiment
// stored before scoping, and one the delete created.
void DropLock(const std::string& db_path, const std::string& lock_path,
              const DeleteLock& lock) {
  if (!lock.file) return;
  fs::path folder = DbFolder(db_path);
  auto removal =
      RemoveTreeBelow(folder, fs::path(lock_path).lexically_relative(folder));
  std::error_code ec;
  if (removal.kind == TreeRemoval::kLink && lock.created) {
    fs::remove(lock_path, ec);
  }
}

// Deletes the rows of `name` and records the plan's paths as doomed, in
// one committed transaction.
core::Status DeleteRows(storage::TrialStore& store, const DeletePlan& plan,
                        const std::string& name) {
  auto found = store.experiments().Find(name);
  if (!found.ok()) return found.error();
  if (!found.value()) return core::Status::Ok();
  std::vector<std::string> paths;
  for (const auto& doomed : plan.paths) paths.push_back(doomed.path());
  TUNER_RETURN_IF_ERROR(store.DeleteExperiment(found.value()->id, name, paths));
  return store.Commit();
}

}  // namespace

core::Status RefuseWhileRunning(const DeletePlan& plan,
                                const std::string& name) {
  if (plan.still_running.empty()) return core::Status::Ok();
  std::string which;
  for (const auto& trial : plan.still_running)
    which += (which.empty() ? "" : ", ") + trial;
  return core::AlreadyExists(
      "experiment '" + name + "' has trials still running with no tuner " +
      "watching them: " + which + "; stop them first (tuner resume " + name +
      ", then tuner stop " + name + "), or wait until they end; nothing " +
      "was deleted");
}

core::Result<DeleteOutcome> DeleteExperiment(storage::TrialStore& store,
                                             const std::string& db_path,
                                             const std::string& name) {
  auto plan = PlanDelete(store, db_path, name);
  if (!plan.ok()) return plan.error();
  DeleteOutcome outcome;
  outcome.trials = plan.value().trials;
  outcome.left = plan.value().left;
  auto lock = LockForDelete(plan.value().lock_path, name);
  if (!lock.ok()) return lock.error();
  TUNER_RETURN_IF_ERROR(RefuseWhileRunning(plan.value(), name));
  if (plan.value().stored) {
    TUNER_RETURN_IF_ERROR(DeleteRows(store, plan.value(), name));
  }
  TUNER_RETURN_IF_ERROR(RemovePaths(store, plan.value(), outcome));
  DropLock(db_path, plan.value().lock_path, lock.value());
  TUNER_RETURN_IF_ERROR(store.Commit());
  return outcome;
}

}  // namespace tuner
