// The experiment life cycle outside a sweep: deleting an experiment (its
// rows and files) and extending its trial budget. Shared by the CLI's
// `tuner delete`/`tuner extend` and the service's endpoints.
#ifndef TUNER_TUNER_SWEEP_EXPERIMENT_LIFECYCLE_H_
#define TUNER_TUNER_SWEEP_EXPERIMENT_LIFECYCLE_H_

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "storage/trial_store.h"

namespace tuner {

// One path a delete removes, root/below, walked from `root` without
// following a link below it (RemoveTreeBelow): `root` is the database's
// folder for its trial directories, the part of checkpoints.dir before its
// first placeholder for a checkpoint directory.
struct DoomedPath {
  std::string root;
  std::string below;         // relative, without `..`
  std::string path() const;  // as recorded in doomed_paths
};

// What deleting `name` removes: its rows (when `stored`), its trials, and
// these files.
struct DeletePlan {
  bool stored = false;  // false: only a half-done delete's files are left
  int64_t trials = 0;
  std::vector<DoomedPath> paths;  // trial dirs, checkpoints
  std::string trials_root;        // for the question ("... in PATH")
  std::string lock_path;          // the tuner lock of the experiment
  // Checkpoint dirs that WhyNotTrialOwned refuses, as "path: why": never
  // removed.
  std::vector<std::string> left;
  // Doomed paths from the database that are none of the experiment's
  // (see PlanDelete): forgotten by a delete, never removed.
  std::vector<std::string> refused;
  // "trial N (its shim, pid P)" for each trial whose shim still runs in
  // this project's trial folder with no tuner watching it (a tuner killed):
  // the delete is refused while there is one.
  std::vector<std::string> still_running;
};

// Why `dir`, a trial's checkpoints.dir with its template filled in
// (absolute), is not the trial's own to delete; empty when it is. It is
// when it has no `..` component and, normalised, it is strictly inside
// `trial_dir` or one of its components names the trial: its id alone (7)
// or with non-digits around it (ckpt_7, not 17).
std::string WhyNotTrialOwned(const std::filesystem::path& dir, int64_t trial_id,
                             const std::string& trial_dir);

// kAlreadyExists naming the trials of `plan.still_running`, when there are
// any: a delete would leave them running, holding their devices.
core::Status RefuseWhileRunning(const DeletePlan& plan,
                                const std::string& name);

// Finds what belongs to `name` in the database at `db_path`, from where
// the database is now (ExperimentTrialsRoot), never from a path it holds:
// for a scoped experiment its `<db>.trials/<name>/`, for one stored before
// scoping its `trials/<id>/` directories, plus each trial's checkpoints.dir
// when that is a per-trial directory ({trial_id} or {trial_dir} in it)
// outside those that WhyNotTrialOwned accepts (the others go to `left`);
// and the paths a half-done delete of `name` left (doomed_paths), each
// checked again: one of those found from the rows, inside
// <db>.trials/<name>/, or the experiment's lock in the shared trials/; any
// other goes to `refused`. A `name` that is no safe path component
// (config::IsName) has no files. kNotFound when there is neither a row nor
// a doomed path.
core::Result<DeletePlan> PlanDelete(storage::TrialStore& store,
                                    const std::string& db_path,
                                    const std::string& name);

struct DeleteOutcome {
  int64_t trials = 0;
  int64_t removed = 0;              // paths that were there and are gone
  std::vector<std::string> failed;  // "path: why", left for a re-run
  std::vector<std::string> left;    // "path: why", never to be removed
};

// Deletes `name`: takes its tuner lock when its folder exists (naming the
// holder when a tuner or the service runs it: kAlreadyExists), deletes
// every row and records the files as doomed in one committed transaction,
// then removes each file with RemoveTreeBelow, never following a link
// below its root (one in the middle of a path: left and named), forgetting
// each one removed or absent. A crash after the commit leaves doomed paths
// that a re-run removes. Creates nothing.
core::Result<DeleteOutcome> DeleteExperiment(storage::TrialStore& store,
                                             const std::string& db_path,
                                             const std::string& name);

// The folder a trial's checkpoints.dir `templ` is walked from when its
// files are removed (RemoveTreeBelow): the components of `templ` before its
// first placeholder, as written (a relative one in `workdir`);
// `trial_dirs_in`, a folder that holds the trial directories, for one that
// starts with {trial_dir}.
std::filesystem::path CheckpointWalkRoot(
    const std::string& templ, const std::string& workdir,
    const std::filesystem::path& trial_dirs_in);

// The largest trial budget an extension may reach (as num_trials).
inline constexpr int64_t kMaxTrialBudget = 10'000'000;

struct ExtendOutcome {
  int64_t budget = 0;  // the new trial budget
  int64_t trials = 0;  // trials the experiment has
  core::ExperimentStatus status = core::ExperimentStatus::kRunning;
  // A tuner (or the service) holds its lock and the experiment had not
  // ended when the budget was raised: that tuner launches the new trials.
  bool running = false;
  std::string lock_owner;  // its lock's text when running
};

// Raises the stored trial budget of `name` by `more` (1 to
// kMaxTrialBudget) in one committed transaction. A sweep running it reads
// the budget again before it would run out (Sweep), so it launches the new
// trials without a restart; a stopped or finished one runs them on
// `tuner resume`. kNotFound, kInvalidArgument (simulated, out of range).
core::Result<ExtendOutcome> ExtendExperiment(storage::TrialStore& store,
                                             const std::string& db_path,
                                             const std::string& name,
                                             int64_t more);

// Whether a finished experiment was extended since: its stored budget
// exceeds its trials (then a resume runs the rest).
bool HasBudgetLeft(storage::TrialStore& store,
                   const storage::ExperimentRecord& experiment);

}  // namespace tuner

#endif  // TUNER_TUNER_SWEEP_EXPERIMENT_LIFECYCLE_H_
