// Where a tuner keeps its trials and its per-experiment lock, and where its
// shim is: shared by the CLI's sweeps and the service's.
#ifndef TUNER_TUNER_TUNER_LOCK_H_
#define TUNER_TUNER_TUNER_LOCK_H_

#include <optional>
#include <string>

#include "trial_runner/device_locks.h"

namespace tuner {

// Where a new experiment's trial directories go: <database file>.trials/NAME/
// next to the database (tuner.db: tuner.db.trials/NAME/), so that neither two
// experiments nor two databases in one folder share one. The name is a
// safe path component (config::IsName). Stored with the experiment
// (StoredConfigJson): a resume finds them there whatever this rule becomes.
std::string TrialsRootFor(const std::string& db_path,
                          const std::string& experiment);

// Where experiments stored before trial directories were scoped keep them:
// trials/ next to the database, shared by its experiments.
std::string LegacyTrialsRoot(const std::string& db_path);

// tuner-shim, next to the running executable.
std::string ShimPath();

// The lock the tuner running `experiment` holds. Its text is "pid=N" for a
// CLI sweep, "server=URL pid=N" for the service.
std::string TunerLockPath(const std::string& trials_root,
                          const std::string& experiment);

// Takes the lock (retried for about half a second: shims probe it by taking
// it for an instant) and writes `owner` into it; nullopt if another tuner
// holds it. Shims whose tuner is gone for trial.orphan_timeout stop their
// trials.
std::optional<runner::LockFile> HoldTunerLock(const std::string& path,
                                              const std::string& owner);

}  // namespace tuner

#endif  // TUNER_TUNER_TUNER_LOCK_H_
