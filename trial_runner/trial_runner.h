// TrialRunner: the verbs a sweep uses to run its trials, and what it is
// told back. LocalRunner runs processes on this machine; a simulated runner
// or a test's fake can stand in for it.
#ifndef TUNER_TRIAL_RUNNER_TRIAL_RUNNER_H_
#define TUNER_TRIAL_RUNNER_TRIAL_RUNNER_H_

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/metrics.h"
#include "core/result.h"
#include "core/trial.h"
#include "trial_runner/output/metric_stream.h"
#include "trial_runner/processes/spawn.h"

namespace tuner::runner {

// Where a trial's reports are read when its stdout carries none
// (metrics_format trainer_state): the log_history of the newest complete
// checkpoint under `dir` whose trainer_state.json matches `pattern`, past
// its first `skip` entries (those of the checkpoint the attempt resumed).
struct TrainerStateSource {
  std::string dir;
  std::string pattern;
  size_t skip = 0;
};

struct TrialLaunch {
  core::TrialId trial = 0;
  SpawnRequest spawn;
  std::chrono::milliseconds timeout{0};       // wall clock; 0 = none
  std::chrono::milliseconds idle_timeout{0};  // no output; 0 = none
  // Between SIGTERM and SIGKILL when the trial is stopped, and for what its
  // main process leaves behind when it exits.
  std::chrono::milliseconds stop_grace{10000};
  int64_t log_cap = 0;  // bytes per log before only metric lines are kept
  // Run once the trial's process group is gone, before OnExit (e.g.
  // `docker rm -f NAME`); empty: none.
  std::vector<std::string> cleanup;
  MetricFormat metrics;     // how its stdout carries metrics
  std::string status_path;  // where the shim writes the exit status
  // The cluster node to run on (a DeviceLease's node); "": this machine.
  std::string node;
  // Its reports come from trainer_state.json files (a TrainerStateRunner
  // reads them); nullopt: from its stdout.
  std::optional<TrainerStateSource> trainer_state;
};

// Why an attempt ended, as its runner learnt it: exactly one.
enum class EndCause {
  kExited,    // its process ended: exit_code or signal says how
  kTimedOut,  // its wall-clock timeout expired: its shim ended it
  kIdle,      // it printed nothing for idle_timeout: its shim ended it
  kOrphaned,  // no tuner held the lock for too long: its shim ended it
  // How it ended is unknown, and lost_why says why:
  kLost,        // its shim left no status (e.g. "its shim was killed by
                // signal 9")
  kNodeFailed,  // its node failed or was drained under it (a cluster
                // runner): not the trial's doing, so it runs again
  kCancelled,   // the cluster cancelled it (e.g. `scancel` by a user)
};

// Whether how the trial's process ended is unknown.
inline bool StatusLost(EndCause cause) {
  return cause == EndCause::kLost || cause == EndCause::kNodeFailed ||
         cause == EndCause::kCancelled;
}

struct TrialExit {
  std::optional<int> exit_code;  // set when the process exited
  int signal = 0;                // set when a signal ended it
  EndCause cause = EndCause::kExited;
  bool stop_requested = false;  // Stop() was called for it (whatever ended it)
  std::string lost_why;         // for a StatusLost cause: what happened
  // When its shim saw it end (Unix seconds), where the shim's status says.
  std::optional<double> ended_at;
};

// One process for the machine's uptime: a pid and its start time.
struct SupervisorId {
  pid_t pid = -1;
  int64_t start = 0;  // clock ticks since boot (/proc/PID/stat field 22)
};

// A shim that a previous tuner started and that still runs.
struct Adoption {
  core::TrialId trial = 0;
  pid_t shim_pid = -1;
  TrialLaunch launch;  // paths, format, cleanup; the command is not rerun
  int64_t stdout_offset = 0;  // output before this was already handled
};

// Receives what trials do. Called on the event loop's thread.
class RunnerObserver {
 public:
  virtual ~RunnerObserver() = default;
  // A report from the trial's stdout (a line, or a metrics block), and the
  // stdout offset just past the line that completed it (where a tuner that
  // adopts the trial resumes reading). May call LocalRunner::Stop().
  virtual void OnMetrics(core::TrialId trial, core::Metrics metrics,
                         int64_t offset) = 0;
  // The trial's main process exited and every other process of its group
  // is gone too (what it left behind got SIGTERM, then SIGKILL after the
  // stop grace); every line it wrote was delivered before. The trial's
  // devices may be handed out again.
  virtual void OnExit(core::TrialId trial, const TrialExit& exit) = 0;
  // A cluster runner found `node` unfit for new trials (down, drained,
  // failing) or fit again. Runners of one machine never call it.
  virtual void OnNodeUsable(const std::string& /*node*/, bool /*usable*/) {}
};

// Runs a sweep's trials. Every verb is called on the thread of the event
// loop the runner was built on, and the observer is called back on it.
class TrialRunner {
 public:
  virtual ~TrialRunner() = default;

  // Starts a trial. Fails (starting nothing) when the command cannot be
  // found, or a log file cannot be created.
  virtual core::Status Start(const TrialLaunch& launch) = 0;
  // Follows a trial that a previous tuner started and that still runs;
  // fails if it is gone.
  virtual core::Status Adopt(const Adoption& adoption) = 0;
  // Asks the trial to stop (SIGTERM), and ends it after its stop_grace. A
  // no-op for a trial that is not running or already stopping.
  virtual void Stop(core::TrialId trial) = 0;
  // Stop(), unless the trial exits by itself within `delay`.
  virtual void StopAfter(core::TrialId trial,
                         std::chrono::milliseconds delay) = 0;
  // Ends every trial now. Exits are still reported through OnExit.
  virtual void KillAll() = 0;
  // Forgets every trial without stopping it (a later tuner adopts them).
  virtual void Detach() = 0;
  // Trials running now.
  virtual size_t running() const = 0;
  // A runner without supervisor processes (a simulation, a test's fake)
  // keeps the defaults below: none runs, none is found.
  // The pid of a running trial's supervisor, or -1 when there is none.
  virtual pid_t ShimPid(core::TrialId) const { return -1; }
  // What names a running trial's supervisor for a later tuner (stored with
  // the trial): its pid and start time; nullopt when it has none.
  virtual std::optional<SupervisorId> Supervisor(core::TrialId) const {
    return std::nullopt;
  }
  // The supervisor a previous tuner left for a trial, if it still runs:
  // the `stored` one if it is alive and the same process, else the one
  // whose command line names `status_path` (started just before that tuner
  // died, before it was stored). -1 when none runs.
  virtual pid_t FindSupervisor(const std::optional<SupervisorId>& /*stored*/,
                               const std::string& /*status_path*/) const {
    return -1;
  }
};

}  // namespace tuner::runner

#endif  // TUNER_TRIAL_RUNNER_TRIAL_RUNNER_H_
