// Where a tuner keeps its trials and its per-experiment lock, and where its
// shim is: shared by the CLI's sweeps and the service's.
#ifndef TUNER_TUNER_BASE_TUNER_LOCK_H_
#define TUNER_TUNER_BASE_TUNER_LOCK_H_

#include <optional>
#include <string>

#include "util/lock_file.h"

namespace tuner {

// Where a new experiment's trial directories go: <database file>.trials/NAME/
// next to the database (tuner.db: tuner.db.trials/NAME/), so that neither two
// experiments nor two databases in one folder share one. The name is a
// safe path component (config::IsName). Always found from where the
// database is now (ExperimentTrialsRoot), so that a database moved or
// copied with its folder uses its own trial directories.
std::string TrialsRootFor(const std::string& db_path,
                          const std::string& experiment);

// Where experiments stored before trial directories were scoped keep them:
// trials/ next to the database, shared by its experiments.
std::string LegacyTrialsRoot(const std::string& db_path);

// tuner-shim, next to the running executable.
std::string ShimPath();

// The lock the tuner running `experiment` holds. Its text is
// CliOwnerText() for a CLI sweep, "server=URL pid=N" for the service.
std::string TunerLockPath(const std::string& trials_root,
                          const std::string& experiment);

// Takes the lock (retried for about half a second: shims probe it by taking
// it for an instant), makes it mode 0644 if it is ours (its text is trusted
// as far as VerifiedTunerPid checks it) and writes `owner` into it; nullopt
// if another tuner
// holds it. Shims whose tuner is gone for trial.orphan_timeout stop their
// trials.
std::optional<util::LockFile> HoldTunerLock(const std::string& path,
                                            const std::string& owner);

// What a CLI sweep writes into its lock: "pid=N start=T exe=PATH", its pid,
// its start time (field 22 of /proc/PID/stat: clock ticks after boot) and
// its executable, so that `tuner stop` signals this process and no other.
std::string CliOwnerText();

// What a tuner lock's text `owner` says of its holder: the service's URL
// ("server=URL pid=N"), else "" (a CLI tuner), and the pid it names, if
// any. Only text: VerifiedTunerPid checks that the process is the tuner.
struct LockOwner {
  std::string server_url;
  std::optional<int> pid;
};
LockOwner ParseLockOwner(const std::string& owner);

// The pid that the lock text `owner` names, if that process is the tuner
// that wrote it: the start time and executable recorded in `owner` are the
// process's now, and the executable has the running tuner's file name.
// The process must also hold `lock_path` open (its text may have been
// copied from another experiment's lock). Else nullopt, and `why` says why
// (a stale or forged lock file, a lock of an older tuner that recorded no
// identity).
std::optional<int> VerifiedTunerPid(const std::string& owner,
                                    const std::string& lock_path,
                                    std::string* why);

}  // namespace tuner

#endif  // TUNER_TUNER_BASE_TUNER_LOCK_H_
