// LocalRunner: runs trial processes on this machine, on one Asio event loop,
// each under its own tuner-shim so that it can outlive the tuner.
#ifndef TUNER_TRIAL_RUNNER_LOCAL_RUNNER_H_
#define TUNER_TRIAL_RUNNER_LOCAL_RUNNER_H_

#include <sys/types.h>

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>  // before Asio: Boost 1.74 with GCC 12 needs it
#include <vector>

#include "core/metrics.h"
#include "core/result.h"
#include "core/trial.h"
#include "trial_runner/file_watcher.h"
#include "trial_runner/metric_stream.h"
#include "trial_runner/spawn.h"

namespace tuner::runner {

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
};

struct TrialExit {
  std::optional<int> exit_code;  // set when the process exited
  int signal = 0;                // set when a signal ended it
  bool timed_out = false;        // its wall-clock timeout expired
  bool idle = false;             // it printed nothing for idle_timeout
  bool orphaned = false;         // no tuner held the lock for too long
  bool stop_requested = false;   // Stop() was called for it
  bool lost = false;             // its shim left no status: what ended
  std::string lost_why;          // it is unknown (then why, e.g. "its
                                 // shim was killed by signal 9")
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
};

struct RunnerOptions {
  std::string shim_path;   // the tuner-shim binary
  std::string tuner_lock;  // held by the tuner while it runs; "" = none
  std::chrono::milliseconds orphan_timeout{0};  // shims stop their trial
                                                // when no tuner holds it
};

// Starts trials under tuner-shim (their own session; the shim owns the
// trial's process group, its exit status and its capped log files), follows
// stdout (inotify) and learns of the shim's end from a pidfd, so it uses no
// thread per trial. A shim outlives the tuner: Detach() leaves trials running
// and Adopt() takes them back. Not thread-safe: call it on the thread that
// runs the io_context.
class LocalRunner {
 public:
  LocalRunner(boost::asio::io_context& io, RunnerObserver& observer,
              RunnerOptions options);
  // Kills every trial still running (unless detached) and waits for it.
  ~LocalRunner();
  LocalRunner(const LocalRunner&) = delete;
  LocalRunner& operator=(const LocalRunner&) = delete;

  // Starts a trial. Fails (starting nothing) when the command cannot be
  // found, or a log file cannot be created.
  core::Status Start(const TrialLaunch& launch);
  // Follows a trial whose shim is still running; fails if it is gone.
  core::Status Adopt(const Adoption& adoption);
  // SIGTERM to the trial's process group, SIGKILL after its stop_grace.
  // A no-op for a trial that is not running or already stopping.
  void Stop(core::TrialId trial);
  // Stop(), unless the trial exits by itself within `delay`.
  void StopAfter(core::TrialId trial, std::chrono::milliseconds delay);
  // SIGKILL to every trial now. Exits are still reported through OnExit.
  void KillAll();
  // Forgets every trial without stopping it (a later tuner adopts them).
  void Detach();
  size_t running() const { return processes_.size(); }
  // The shim's pid of a running trial, or -1.
  pid_t ShimPid(core::TrialId trial) const;

 private:
  struct Process;
  core::Status Follow(std::unique_ptr<Process> process, int64_t offset);
  void ReadOutput(core::TrialId trial);
  void DeliverLine(core::TrialId trial, std::string_view line);
  void HandleExit(core::TrialId trial);
  void Deliver(core::TrialId trial);
  Process* Find(core::TrialId trial);

  boost::asio::io_context& io_;
  RunnerObserver& observer_;
  RunnerOptions options_;
  FileWatcher watcher_;
  std::unordered_map<core::TrialId, std::unique_ptr<Process>> processes_;
};

// The start time of process `pid` (field 22 of /proc/PID/stat, in clock
// ticks since boot), or nullopt when there is no such process. A pid and its
// start time name one process for the machine's uptime.
std::optional<int64_t> ProcessStartTime(pid_t pid);

// The live tuner-shim whose command line names `status_path` (a shim
// started just before its tuner died, before its pid was stored), or -1.
pid_t FindShim(const std::string& status_path);

}  // namespace tuner::runner

#endif  // TUNER_TRIAL_RUNNER_LOCAL_RUNNER_H_
