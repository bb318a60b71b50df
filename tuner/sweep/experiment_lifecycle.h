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
#include "tuner/sweep/delete_plan.h"

namespace tuner {

// kAlreadyExists naming the trials of `plan.still_running`, when there are
// any: a delete would leave them running, holding their devices.
core::Status RefuseWhileRunning(const DeletePlan& plan,
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
