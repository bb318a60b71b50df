// LocalRunner: runs trial processes on this machine, on one Asio event loop,
// each under its own tuner-shim so that it can outlive the tuner.
#ifndef TUNER_TRIAL_RUNNER_PROCESSES_LOCAL_RUNNER_H_
#define TUNER_TRIAL_RUNNER_PROCESSES_LOCAL_RUNNER_H_

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
#include "trial_runner/output/metric_stream.h"
#include "trial_runner/processes/file_watcher.h"
#include "trial_runner/processes/spawn.h"
#include "trial_runner/trial_runner.h"

namespace tuner::runner {

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
class LocalRunner : public TrialRunner {
 public:
  LocalRunner(boost::asio::io_context& io, RunnerObserver& observer,
              RunnerOptions options);
  // Kills every trial still running (unless detached) and waits for it.
  ~LocalRunner() override;
  LocalRunner(const LocalRunner&) = delete;
  LocalRunner& operator=(const LocalRunner&) = delete;

  // Starts a trial. Fails (starting nothing) when the command cannot be
  // found, or a log file cannot be created.
  core::Status Start(const TrialLaunch& launch) override;
  // Follows a trial whose shim is still running; fails if it is gone.
  core::Status Adopt(const Adoption& adoption) override;
  // SIGTERM to the trial's process group, SIGKILL after its stop_grace.
  // A no-op for a trial that is not running or already stopping.
  void Stop(core::TrialId trial) override;
  // Stop(), unless the trial exits by itself within `delay`.
  void StopAfter(core::TrialId trial, std::chrono::milliseconds delay) override;
  // SIGKILL to every trial now. Exits are still reported through OnExit.
  void KillAll() override;
  // Forgets every trial without stopping it (a later tuner adopts them).
  void Detach() override;
  size_t running() const override { return processes_.size(); }
  // The shim's pid of a running trial, or -1.
  pid_t ShimPid(core::TrialId trial) const override;
  std::optional<SupervisorId> Supervisor(core::TrialId trial) const override;
  pid_t FindSupervisor(const std::optional<SupervisorId>& stored,
                       const std::string& status_path) const override;

 private:
  struct Process;
  core::Status Follow(std::unique_ptr<Process> process, int64_t offset);
  void ReadOutput(core::TrialId trial);
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

// Whether the running shim `shim` writes its status to `status_path`: its
// command line names that path, or it holds that path's folder open (the
// folder was moved or renamed since it started). A shim of a copied
// project (`cp -r`) writes to the original's folder: not this one.
bool ShimWritesTo(pid_t shim, const std::string& status_path);

// The live shim of a trial whose status goes to `status_path`: `stored`
// when it still runs and writes there, else one whose command line names
// that path (started before its pid was stored); -1 when none runs.
pid_t FindLiveShim(const std::optional<SupervisorId>& stored,
                   const std::string& status_path);

}  // namespace tuner::runner

#endif  // TUNER_TRIAL_RUNNER_PROCESSES_LOCAL_RUNNER_H_
