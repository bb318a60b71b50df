// LocalRunner: runs trial processes on this machine, on one Asio event loop.
#ifndef TUNER_TRIAL_RUNNER_LOCAL_RUNNER_H_
#define TUNER_TRIAL_RUNNER_LOCAL_RUNNER_H_

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>  // before Asio: Boost 1.74 with GCC 12 needs it
#include <vector>

#include "trial_runner/file_watcher.h"
#include "trial_runner/metric_stream.h"
#include "trial_runner/spawn.h"
#include "tuner/core/metrics.h"
#include "tuner/core/result.h"
#include "tuner/core/trial.h"

namespace tuner::runner {

struct TrialLaunch {
  core::TrialId trial = 0;
  SpawnRequest spawn;
  std::chrono::milliseconds timeout{0};  // wall clock; 0 = none
  // Between SIGTERM and SIGKILL when the trial is stopped, and for what its
  // main process leaves behind when it exits.
  std::chrono::milliseconds stop_grace{10000};
  // Run once the trial's process group is gone, before OnExit (e.g.
  // `docker rm -f NAME`); empty: none.
  std::vector<std::string> cleanup;
  MetricFormat metrics;  // how its stdout carries metrics
};

struct TrialExit {
  std::optional<int> exit_code;  // set when the process exited
  int signal = 0;                // set when a signal ended it
  bool timed_out = false;        // its timeout expired (and it was stopped)
  bool stop_requested = false;   // Stop() was called for it
};

// Receives what trials do. Called on the event loop's thread.
class RunnerObserver {
 public:
  virtual ~RunnerObserver() = default;
  // A report from the trial's stdout (a line, or a metrics block). May call
  // LocalRunner::Stop().
  virtual void OnMetrics(core::TrialId trial, core::Metrics metrics) = 0;
  // The trial's main process exited and every other process of its group
  // is gone too (what it left behind got SIGTERM, then SIGKILL after the
  // stop grace); every line it wrote was delivered before. The trial's
  // devices may be handed out again.
  virtual void OnExit(core::TrialId trial, const TrialExit& exit) = 0;
};

// Starts trials as process groups whose stdout and stderr go to files; the
// runner follows stdout (inotify) and learns of exits from a pidfd, so it
// uses no thread per trial. When a trial's main process exits, what it left
// running in its process group is stopped, and the runner waits (polling,
// 1 to 50 ms) until the group is empty. The runner makes this process a
// child subreaper, so that the group's orphans are its to reap.
// Not thread-safe: call it on the thread that runs the io_context.
class LocalRunner {
 public:
  LocalRunner(boost::asio::io_context& io, RunnerObserver& observer);
  // Kills (SIGKILL) and reaps every trial still running.
  ~LocalRunner();
  LocalRunner(const LocalRunner&) = delete;
  LocalRunner& operator=(const LocalRunner&) = delete;

  // Starts a trial. Fails (starting nothing) when the command cannot be
  // executed or a log file cannot be created.
  core::Status Start(const TrialLaunch& launch);
  // SIGTERM to the trial's process group, SIGKILL after its stop_grace.
  // A no-op for a trial that is not running or already stopping.
  void Stop(core::TrialId trial);
  // Stop(), unless the trial exits by itself within `delay`. Replaces the
  // trial's timeout.
  void StopAfter(core::TrialId trial, std::chrono::milliseconds delay);
  // SIGKILL to every trial now. Exits are still reported through OnExit.
  void KillAll();
  size_t running() const { return processes_.size(); }

 private:
  struct Process;
  void WaitForExit(Process& process);
  void ReadOutput(core::TrialId trial);
  void DeliverLine(core::TrialId trial, std::string_view line);
  void HandleExit(core::TrialId trial);
  void WaitForGroup(core::TrialId trial, std::chrono::milliseconds delay);
  void GroupGone(core::TrialId trial);
  void Deliver(core::TrialId trial);
  void Signal(Process& process, int signal);
  Process* Find(core::TrialId trial);

  boost::asio::io_context& io_;
  RunnerObserver& observer_;
  FileWatcher watcher_;
  std::unordered_map<core::TrialId, std::unique_ptr<Process>> processes_;
};

}  // namespace tuner::runner

#endif  // TUNER_TRIAL_RUNNER_LOCAL_RUNNER_H_
