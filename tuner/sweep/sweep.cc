#include "tuner/sweep/sweep.h"

#include <spdlog/spdlog.h>

#include <boost/asio/post.hpp>

#include "schedulers/factory.h"
#include "trial_runner/processes/local_runner.h"
#include "trial_runner/processes/trainer_state_runner.h"
#include "tuner/base/one_line.h"
#include "tuner/sweep/sweep_live_trial.h"

namespace tuner {

Sweep::Sweep(boost::asio::io_context& io, const ExperimentConfig& config,
             storage::TrialStore& store, ProgressSink& progress,
             Options options)
    : io_(io),
      config_(config),
      store_(store),
      progress_(progress),
      options_(std::move(options)),
      searcher_(options_.make_searcher
                    ? options_.make_searcher(config)
                    : schedulers::MakeSearcher(config.searcher, config.space,
                                               config.mode)),
      scheduler_(options_.make_scheduler
                     ? options_.make_scheduler(config.scheduler)
                     : schedulers::MakeTrialScheduler(config.scheduler)),
      pool_(*options_.pool),
      planner_(config, options_.trials_root, options_.cpus),
      own_clock_(options_.clock ? nullptr : std::make_unique<SteadyClock>(io)),
      clock_(options_.clock ? *options_.clock : *own_clock_),
      checkpoints_(config, clock_,
                   CheckpointKeeper(config, options_.trials_root,
                                    options_.original_database),
                   {.milestones = [this] { return scheduler_->Milestones(); },
                    .stop = [this](core::TrialId id) { runner_->Stop(id); },
                    .enter =
                        [this](const std::function<void()>& poll) {
                          Guarded("a checkpoint poll", poll);
                        }}),
      fail_fast_(config.trial.fail_fast),
      runner_(MakeRunner()),
      journal_(io, store,
               [this](const std::string& why) {
                 Guarded("a storage failure", [&] { Fail(why); });
               }),
      exit_rules_(config),
      promotions_(*scheduler_, journal_, counts_, PromotionHooks()),
      seats_(pool_, clock_, {options_.share, options_.priority, config.preempt},
             {.waits = [this] { return !waiting_.empty() && Running(); },
              .held = [this] { return HeldDevices(); },
              .wake =
                  [this](const char* why) {
                    Guarded(why, [this] {
                      FillSlots();
                      CheckDone();
                    });
                  },
              .yield =
                  [this](const std::vector<int>& ids) {
                    bool yielded = false;
                    Guarded("a preemption", [&] { yielded = Yield(ids); });
                    return yielded;
                  }}) {
  budget_ = config.num_trials;
  counts_.total = budget_;
}

SweepOutcome Sweep::outcome() const {
  switch (phase_) {
    case SweepPhase::kFinished:
      return SweepOutcome::kFinished;
    case SweepPhase::kInterrupted:
      return SweepOutcome::kInterrupted;
    case SweepPhase::kFailed:
      return SweepOutcome::kFailed;
    case SweepPhase::kDetached:
      return SweepOutcome::kDetached;
    default:
      return SweepOutcome::kRunning;
  }
}

bool Sweep::Ended() const { return outcome() != SweepOutcome::kRunning; }

std::unique_ptr<runner::TrialRunner> Sweep::MakeRunner() {
  auto make = [this](runner::RunnerObserver& observer)
      -> std::unique_ptr<runner::TrialRunner> {
    if (options_.make_runner) return options_.make_runner(io_, observer);
    return std::make_unique<runner::LocalRunner>(io_, observer,
                                                 options_.runner);
  };
  if (config_.metrics_format != "trainer_state") return make(*this);
  return std::make_unique<runner::TrainerStateRunner>(
      io_, *this, config_.checkpoints.poll, make);
}

std::chrono::steady_clock::time_point Sweep::Now() const {
  return clock_.Now();
}

Sweep::~Sweep() = default;

core::Status Sweep::Start() {
  core::Status status = core::Status::Ok();
  Guarded("the start", [&] { status = StartUnguarded(); });
  return status;
}

core::Status Sweep::Resume(const storage::ExperimentRecord& experiment) {
  core::Status status = core::Status::Ok();
  Guarded("the resume", [&] { status = ResumeUnguarded(experiment); });
  return status;
}

core::Status Sweep::StartUnguarded() {
  storage::ExperimentRecord record;
  record.name = config_.name;
  record.status = core::ExperimentStatus::kRunning;
  record.metric = config_.metric;
  record.mode = config_.mode;
  record.time_attr = config_.time_attr;
  record.max_t = config_.scheduler.max_t;
  record.config_json = options_.config_json;
  auto id = journal_.CreateExperiment(record, options_.cluster_job);
  if (!id.ok()) return id.status();
  experiment_ = id.value();
  FillSlots();
  CheckDone();
  return core::Status::Ok();
}

void Sweep::Interrupt(bool force) {
  Guarded("a stop", [&] { InterruptUnguarded(force); });
}

void Sweep::InterruptUnguarded(bool force) {
  if (Running()) phase_ = SweepPhase::kInterrupting;
  EndWaiting();
  if (force) {
    runner_->KillAll();
  } else {
    for (auto& [id, trial] : live_) runner_->Stop(id);
  }
  CheckDone();
}

Promotions::Sweep Sweep::PromotionHooks() {
  return {.live = [this](core::TrialId id) -> LiveTrial* {
            auto it = live_.find(id);
            return it == live_.end() ? nullptr : it->second.get();
          },
          .relaunch =
              [this](std::unique_ptr<LiveTrial> trial) {
                LiveTrial& ref = *trial;
                live_.emplace(ref.id, std::move(trial));
                Relaunch(ref);
              },
          .finish =
              [this](LiveTrial& trial, const std::string& reason) {
                core::TrialId id = trial.id;
                Finish(trial, core::TrialStatus::kStopped, reason);
                live_.erase(id);  // if it was live
              },
          .stop = [this](core::TrialId id) { runner_->Stop(id); },
          .paused =
              [this](const LiveTrial& trial) {
                progress_.TrialEnded(EventOf(trial), core::TrialStatus::kPaused,
                                     trial.reason, counts_);
              }};
}

void Sweep::Detach() {
  checkpoints_.StopPolling();
  seats_.StopWaiting();
  runner_->Detach();
  // Detached first: a commit that fails now leaves its trials to their
  // shims all the same (its error() says why).
  phase_ = SweepPhase::kDetached;
  (void)journal_.Commit();
  progress_.SweepEnded("detached", counts_);
  if (options_.on_finished) options_.on_finished();
}

void Sweep::Fail(const std::string& reason) {
  if (error_.empty()) error_ = reason;
  if (phase_ == SweepPhase::kInterrupting) phase_ = SweepPhase::kFailing;
  if (!Running()) return;
  phase_ = SweepPhase::kFailing;
  InterruptUnguarded(false);  // ends it once its trials have exited
}

TrialEvent Sweep::EventOf(const LiveTrial& trial) const {
  return TrialEvent{trial.id, &trial.params, trial.attempt};
}

bool Sweep::LeftMovedProject() {
  if (!trials_root_) trials_root_.emplace(options_.trials_root);
  if (!trials_root_->Moved()) return false;
  error_ = "the project folder moved: " + options_.trials_root +
           " is no longer the folder this sweep began in; its running "
           "trials go on, and `tuner resume " +
           config_.name + " --db DB` where the database is now takes them up";
  spdlog::error("experiment '{}': {}", config_.name, error_);
  Detach();
  return true;
}

void Sweep::FillSlots() {
  // A sweep being stopped launches nothing: it ends as interrupted, each
  // trial's status read through its held folder, wherever that went.
  if (!Running() || LeftMovedProject()) return;
  while (Running() && seats_.AnyFree()) {
    if (!waiting_.empty()) {
      if (!LaunchWaiting()) break;
      continue;
    }
    if (promotions_.PromoteNext()) {
      if (!waiting_.empty()) break;
      continue;
    }
    if (exhausted_) break;
    if (next_index_ >= budget_ && !RefreshBudget(false)) break;
    auto params = searcher_->Suggest(next_index_);
    if (!params) {
      exhausted_ = true;
      break;
    }
    auto id = journal_.AddTrial(experiment_, next_index_, *params);
    if (!id) return;
    ++next_index_;
    ++counts_.started;
    auto trial = std::make_unique<LiveTrial>(*id, config_);
    trial->index = next_index_ - 1;
    trial->params = std::move(*params);
    scheduler_->OnAdd(trial->id, trial->index);
    LiveTrial& ref = *trial;
    live_.emplace(ref.id, std::move(trial));
    StartOrQueue(ref);
    if (!waiting_.empty()) break;
  }
  if (exhausted_ || next_index_ >= budget_) promotions_.BudgetSpent();
}

bool Sweep::RefreshBudget(bool locked) {
  if (experiment_ == 0) return false;
  auto stored = locked ? store_.experiments().TrialBudgetLocked(experiment_)
                       : store_.experiments().TrialBudget(experiment_);
  if (!journal_.Note(stored.status()) || !stored.value()) return false;
  if (*stored.value() <= budget_) return false;
  spdlog::info("experiment '{}': trial budget extended from {} to {}",
               config_.name, budget_, *stored.value());
  budget_ = *stored.value();
  counts_.total = budget_;
  return true;
}

void Sweep::BudgetExtended() {
  Guarded("an extension", [this] {
    if (!Running()) return;
    FillSlots();
    CheckDone();
  });
}

void Sweep::OnMetrics(core::TrialId id, core::Metrics metrics, int64_t offset) {
  // Failing from an exception: its trials are being stopped, and what
  // judged their reports threw; more reports would only throw again.
  if (phase_ == SweepPhase::kFaulted) return;
  Guarded("a report", [&] { HandleMetrics(id, std::move(metrics), offset); });
}

void Sweep::OnExit(core::TrialId id, const runner::TrialExit& exit) {
  Guarded("a trial's end", [&] { HandleExit(id, exit); });
}

void Sweep::OnNodeUsable(const std::string& node, bool usable) {
  Guarded("a node's state", [&] {
    pool_.SetNodeUsable(node, usable);
    if (usable) return FillSlots();
    if (!pool_.AnyNodeUsable()) {
      // Waiting would never end: its trials go back to pending for a
      // `tuner resume` once the cluster is back.
      Fail(
          "no node of the cluster is usable (down, drained, or the "
          "allocation ended); `tuner resume " +
          config_.name + "` takes the sweep up again");
    }
  });
}

void Sweep::Finish(LiveTrial& trial, core::TrialStatus status,
                   const std::string& given_reason) {
  // A reason may quote what the trial printed (metric names, an error
  // line): no control character reaches a terminal or the store.
  const std::string reason = OneLine(given_reason);
  storage::TrialEnd end{status, trial.exit_code, reason, trial.EndTime(),
                        trial.exited_at};
  journal_.FinishTrial(trial.id, end);
  checkpoints_.TrialEnded(status, trial.last_value, trial.output_dir);
  journal_.Commit();
  if (trial.last_time && trial.last_value && trial.life.Undecided()) {
    Observe(trial, *trial.last_time, *trial.last_value);
  }
  if (status == core::TrialStatus::kCompleted) ++counts_.completed;
  if (status == core::TrialStatus::kStopped) ++counts_.stopped;
  if (status == core::TrialStatus::kFailed) ++counts_.failed;
  progress_.TrialEnded(EventOf(trial), status, reason, counts_);
  // A sweep being stopped ends its trials its own way: not counted.
  if (!Running()) return;
  if (auto why = fail_fast_.Ended(status, reason)) Fail(*why);
}

void Sweep::CheckDone() {
  if (Ended() || !live_.empty()) return;
  bool more = next_index_ < budget_ && !exhausted_;
  if (more && Running()) return;
  if (Running()) {
    while (seats_.AnyFree() && promotions_.PromoteNext()) {
    }
    if (live_.empty()) promotions_.EndUnpromoted();  // may commit
  }
  if (!live_.empty()) return;  // it promoted one instead
  // About to end: the last read of the budget, in the batch that writes
  // the end, so an extension committed before it is launched, and one
  // committed after it finds the experiment ended (ExtendExperiment).
  if (Running() && !exhausted_ && RefreshBudget(true)) {
    FillSlots();
    if (!live_.empty() || (next_index_ < budget_ && !exhausted_)) return;
  }
  phase_ = phase_ == SweepPhase::kRunning        ? SweepPhase::kFinished
           : phase_ == SweepPhase::kInterrupting ? SweepPhase::kInterrupted
                                                 : SweepPhase::kFailed;
  using core::ExperimentStatus;
  ExperimentStatus status =
      phase_ == SweepPhase::kFinished ? ExperimentStatus::kFinished
      : phase_ == SweepPhase::kFailed ? ExperimentStatus::kFailed
                                      : ExperimentStatus::kInterrupted;
  if (experiment_ != 0) journal_.ExperimentEnded(experiment_, status, error_);
  progress_.SweepEnded(std::string(core::ToString(status)), counts_);
  if (options_.on_finished) options_.on_finished();
}

}  // namespace tuner
