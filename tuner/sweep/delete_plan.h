// DeletePlan: what deleting an experiment removes (its rows, its trial
// directories and checkpoints, what a half-done delete left), each path
// checked against the database's folder and the trial it belongs to.
#ifndef TUNER_TUNER_SWEEP_DELETE_PLAN_H_
#define TUNER_TUNER_SWEEP_DELETE_PLAN_H_

#include <cstdint>
#include <filesystem>
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

// The folder a trial's checkpoints.dir `templ` is walked from when its
// files are removed (RemoveTreeBelow): the components of `templ` before its
// first placeholder, as written (a relative one in `workdir`);
// `trial_dirs_in`, a folder that holds the trial directories, for one that
// starts with {trial_dir}.
std::filesystem::path CheckpointWalkRoot(
    const std::string& templ, const std::string& workdir,
    const std::filesystem::path& trial_dirs_in);

// The database's folder: where the walks to its trial directories start.
std::filesystem::path DbFolder(const std::string& db_path);
// Whether anything, a symbolic link included, is at `path` (normalised).
bool AnythingAt(const std::filesystem::path& path);

}  // namespace tuner

#endif  // TUNER_TUNER_SWEEP_DELETE_PLAN_H_
