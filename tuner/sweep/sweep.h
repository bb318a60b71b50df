// Sweep: runs one experiment to its end on an Asio event loop.
#ifndef TUNER_TUNER_SWEEP_SWEEP_H_
#define TUNER_TUNER_SWEEP_SWEEP_H_

#include <boost/asio/io_context.hpp>
#include <deque>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>  // before Asio: Boost 1.74 with GCC 12 needs it
#include <vector>

#include "schedulers/searcher.h"
#include "schedulers/trial_scheduler.h"
#include "storage/trial_store.h"
#include "trial_runner/devices/device_pool.h"
#include "trial_runner/processes/local_runner.h"  // RunnerOptions: the default runner
#include "trial_runner/trial_runner.h"
#include "tuner/base/clock.h"
#include "tuner/base/pinned_folder.h"
#include "tuner/config/experiment_config.h"
#include "tuner/sweep/checkpoint_watch.h"
#include "tuner/sweep/device_seats.h"
#include "tuner/sweep/device_share.h"
#include "tuner/sweep/exit_rules.h"
#include "tuner/sweep/fail_fast.h"
#include "tuner/sweep/journal.h"
#include "tuner/sweep/launch_planner.h"
#include "tuner/sweep/progress.h"
#include "tuner/sweep/promotions.h"

namespace tuner {

struct LiveTrial;  // sweep_live_trial.h
class TrialRestorer;

// How a sweep ended.
enum class SweepOutcome {
  kRunning,
  kFinished,
  kInterrupted,
  kFailed,
  kDetached  // trials left running for a later Resume()
};

// Moves data between the modules: runner report → storage (append) →
// scheduler (decide) → storage (decision) → runner (act). Every write is
// committed before the action that depends on it (a launch, a stop), and
// bursts of reports share one commit, posted right after the burst: no
// batch stays open while the loop waits (other processes write the same
// database). Not thread-safe: everything runs on
// the io_context's thread.
class Sweep : public runner::RunnerObserver {
 public:
  struct Options {
    std::string config_json;  // stored with the experiment
    std::string trials_root;  // trials/<id>/ live here
    // Whether the database is the file the experiment was created in
    // (IsStoredInDatabase): only then does keep_best remove a checkpoint
    // outside the trial's own directory; one it may not remove is left
    // with a warning naming it. False (a copy, a crafted record) is safe.
    bool original_database = false;
    int cpus = 1;
    runner::DevicePool* pool = nullptr;  // required; outlives the sweep
    runner::RunnerOptions runner;        // the shim, the tuner's lock
    std::function<void()> on_finished;   // called once, when the sweep ends
    // Shares the devices with other sweeps of this process (the service);
    // nullptr: this sweep takes every device it can.
    DeviceShare* share = nullptr;
    double priority = 1;  // its weight in `share`
    // The sweep's time and timers (report throttling, checkpoint waits and
    // polls, device retries); nullptr: a SteadyClock on the sweep's loop.
    // Outlives the sweep.
    Clock* clock = nullptr;
    // Builds the runner of its trials, which reports to `observer` on
    // `io`; empty: a LocalRunner with `runner` (processes on this machine).
    std::function<std::unique_ptr<runner::TrialRunner>(
        boost::asio::io_context& io, runner::RunnerObserver& observer)>
        make_runner;
    // The Slurm allocation its trials run in, stored with the experiment
    // when it starts (a resume reuses it); empty job: this machine.
    storage::ClusterJob cluster_job;
    // Builds the trial scheduler; empty: schedulers::MakeTrialScheduler.
    std::function<std::unique_ptr<schedulers::TrialScheduler>(
        const core::SchedulerSpec&)>
        make_scheduler;
    // Builds the searcher; empty: schedulers::MakeSearcher.
    std::function<std::unique_ptr<schedulers::Searcher>(
        const ExperimentConfig&)>
        make_searcher;
  };

  Sweep(boost::asio::io_context& io, const ExperimentConfig& config,
        storage::TrialStore& store, ProgressSink& progress, Options options);
  ~Sweep() override;

  // Registers the experiment and starts the first trials. Fails if the
  // experiment exists already or the database cannot be written.
  core::Status Start();
  // Takes up an unfinished experiment (sweep_resume.cc): rebuilds the
  // scheduler and searcher from the stored trials, reports and decisions,
  // adopts trials whose shim still runs (checked by pid and start time)
  // and reads their output from the last stored offset, records the real
  // exit of those that ended meanwhile, relaunches (from their newest
  // checkpoint) those that died without a status, then goes on.
  core::Status Resume(const storage::ExperimentRecord& experiment);
  // Stops every trial (SIGTERM, then SIGKILL after the grace period; at once
  // when `force`) and ends the sweep as interrupted once they have exited.
  void Interrupt(bool force);
  // Leaves every running trial to its shim and ends the sweep at once; a
  // later Resume() adopts them.
  void Detach();
  // Reads the trial budget again (`tuner extend` raised it) and launches
  // the new trials it allows. The sweep also reads it by itself whenever
  // it has launched every trial of its budget and a device is free or it
  // would end, so a sweep in another process picks an extension up too.
  void BudgetExtended();

  SweepOutcome outcome() const;
  // Why it failed, when the outcome is kFailed: the first storage error, or
  // an exception thrown inside it (stored as the experiment's reason). Why
  // it left its trials, when it detached by itself (LeftMovedProject).
  const std::string& error() const { return error_; }
  const SweepCounts& counts() const { return counts_; }
  storage::ExperimentId experiment_id() const { return experiment_; }
  // Devices its trials hold now.
  int HeldDevices() const;

  // runner::RunnerObserver; none throws (see Guarded).
  void OnMetrics(core::TrialId trial, core::Metrics metrics,
                 int64_t offset) override;
  void OnExit(core::TrialId trial, const runner::TrialExit& exit) override;
  // A node failed or drains: its devices get no new trial until it is
  // usable again.
  void OnNodeUsable(const std::string& node, bool usable) override;

 private:
  // Where the sweep is. It launches only while running; stopping (asked,
  // or failed: storage, fail_fast, no usable node) it stops its trials and
  // ends once they have exited. Faulted (an exception escaped one of its
  // handlers) it also drops their reports, and a second fault kills them
  // and ends it at once.
  //   kRunning ─Interrupt─▶ kInterrupting ─┐
  //   kRunning │ kInterrupting ─Fail─▶ kFailing ─┤ trials exited ▶ kFinished │
  //   any not ended ─Fault─▶ kFaulted ─────────────┘   kInterrupted │ kFailed
  //   kRunning ─Detach─▶ kDetached
  enum class SweepPhase {
    kRunning,
    kInterrupting,
    kFailing,
    kFaulted,
    kFinished,
    kInterrupted,
    kFailed,
    kDetached
  };
  bool Running() const { return phase_ == SweepPhase::kRunning; }
  bool Ended() const;
  // Fails the sweep with `reason` (kept in error() unless one is there):
  // stops its trials and ends it as failed once they have exited.
  void Fail(const std::string& reason);
  // Runs `body`, an entry point of the event loop into this sweep (a
  // runner event, a timer, a post, a call of the service). An exception
  // from it fails this sweep with its message as the reason instead of
  // escaping io_context::run() and ending every other sweep of the process.
  void Guarded(const char* where, const std::function<void()>& body);
  // An exception escaped: faults the sweep (see SweepPhase).
  void Fault(const std::string& reason);
  void HandleMetrics(core::TrialId trial, core::Metrics metrics,
                     int64_t offset);
  void HandleExit(core::TrialId trial, const runner::TrialExit& exit);
  // The runner of its trials (Options::make_runner, else a LocalRunner),
  // behind a TrainerStateRunner under metrics_format trainer_state.
  std::unique_ptr<runner::TrialRunner> MakeRunner();
  // Promotions' way back into the sweep: its live trials, relaunch,
  // finish, stop, progress.
  Promotions::Sweep PromotionHooks();
  core::Status StartUnguarded();
  core::Status ResumeUnguarded(const storage::ExperimentRecord& experiment);
  void InterruptUnguarded(bool force);
  enum class LaunchResult { kStarted, kNoDevice, kFailed };
  void FillSlots();
  // Whether the project folder moved since the sweep began (its trials
  // root no longer at its path): then it leaves its running trials to their
  // shims, as Detach() does, with error() saying where to resume them, and
  // launches nothing at the old path.
  bool LeftMovedProject();
  // Takes up a raised trial budget (ExtendTrialBudget); true if it grew.
  // `locked`: read in a write batch, before the sweep ends (so that an
  // extension committed meanwhile is never lost).
  bool RefreshBudget(bool locked);
  LaunchResult Launch(LiveTrial& trial);
  // Labels and stores the lease, marks the trial running, commits.
  core::Status RecordLaunch(LiveTrial& trial);
  // Launch(), else queues the trial for a device or ends it as failed.
  void StartOrQueue(LiveTrial& trial);
  bool LaunchWaiting();
  // The share asks for a group back (preemption): stops the trial that got
  // least far among those holding a device of `ids` (any, when empty); it
  // is queued again when it exits. Returns whether one was stopped.
  bool Yield(const std::vector<int>& ids);
  // Gives the trial's devices back; they are not handed out again for
  // `rest` (a device the stack found busy).
  void ReleaseDevices(LiveTrial& trial, std::chrono::milliseconds rest =
                                            std::chrono::milliseconds(0));
  static constexpr std::chrono::milliseconds kBusyDeviceRest{30000};
  void RecordShim(const LiveTrial& trial);
  // Resume (sweep_resume.cc; what is stored rebuilt by TrialRestorer).
  // Adopts, relaunches, queues or parks (paused) a trial not ended.
  void TakeUp(TrialRestorer& restorer, const storage::TrialRecord& row);
  void Readopt(LiveTrial& trial, const storage::TrialRecord& row);
  // Acts on a verdict reached before the crash, once the trial is adopted.
  void ActOnRestored(LiveTrial& trial, core::Action verdict);
  void EndWaiting();
  // Acts on the scheduler's decision about a stored report.
  void Judge(LiveTrial& trial, double time, double value,
             const core::Decision& decision);
  // Appends the report (its seq assigned); false if storage failed.
  bool StoreReport(LiveTrial& trial, storage::ReportRecord report, bool judged);
  // Stores what is withheld (the trial ended).
  void StoreWithheld(LiveTrial& trial);
  std::chrono::steady_clock::time_point Now() const;
  // An attempt's exit (sweep_exit.cc): Relaunch, RecordRetries, RouteExit,
  // FollowRoute.
  // Starts `trial` again (a retry or a promotion): keeps its old logs as
  // .attempt-N.log and skips the reports it already made.
  void Relaunch(LiveTrial& trial);
  // Stores the trial's retry budgets spent, for a restarted tuner.
  void RecordRetries(const LiveTrial& trial);
  // Feeds a rung's (or the end's) value to the searcher.
  void Observe(const LiveTrial& trial, double time, double value);
  // Pauses the trial once its checkpoint of `rung` is in (CheckpointWatch).
  void PauseAtCheckpoint(LiveTrial& trial, double rung);
  // Where the trial goes from its attempt's exit (ExitRules).
  ExitRoute RouteExit(const LiveTrial& trial,
                      const runner::TrialExit& exit) const;
  // Acts on the route; `id` and its trial are in live_.
  void FollowRoute(core::TrialId id, const ExitRoute& route);
  void Finish(LiveTrial& trial, core::TrialStatus status,
              const std::string& reason);
  void CheckDone();
  TrialEvent EventOf(const LiveTrial& trial) const;

  boost::asio::io_context& io_;
  const ExperimentConfig& config_;
  storage::TrialStore& store_;
  ProgressSink& progress_;
  Options options_;
  std::unique_ptr<schedulers::Searcher> searcher_;
  std::unique_ptr<schedulers::TrialScheduler> scheduler_;
  runner::DevicePool& pool_;
  LaunchPlanner planner_;              // what a trial's attempt is
  std::deque<core::TrialId> waiting_;  // live trials without a device yet
  std::unique_ptr<Clock> own_clock_;   // when Options::clock is null
  Clock& clock_;
  CheckpointWatch checkpoints_;  // pauses at a checkpoint, keep_best
  FailFast fail_fast_;
  std::unique_ptr<runner::TrialRunner> runner_;
  storage::ExperimentId experiment_ = 0;
  std::unordered_map<core::TrialId, std::unique_ptr<LiveTrial>> live_;
  int64_t next_index_ = 0;
  int64_t budget_ = 0;  // trials to run: num_trials, or as extended
  bool exhausted_ = false;
  SweepPhase phase_ = SweepPhase::kRunning;
  std::string error_;
  Journal journal_;  // every write to store_ (reads go to store_)
  ExitRules exit_rules_;
  std::optional<PinnedFolder> trials_root_;  // pinned at the first launch
  SweepCounts counts_;
  Promotions promotions_;  // paused trials, promoted or stopped
  // Last: destroyed first (it leaves the share, which may call back).
  DeviceSeats seats_;
};

}  // namespace tuner

#endif  // TUNER_TUNER_SWEEP_SWEEP_H_
