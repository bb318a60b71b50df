// TrainerStateRunner: a trial's reports from its checkpoints'
// trainer_state.json, for scripts whose stdout carries none.
#ifndef TUNER_TRIAL_RUNNER_PROCESSES_TRAINER_STATE_RUNNER_H_
#define TUNER_TRIAL_RUNNER_PROCESSES_TRAINER_STATE_RUNNER_H_

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <utility>  // before Asio: Boost 1.74 with GCC 12 needs it

#include "trial_runner/trial_runner.h"

namespace tuner::runner {

// Wraps the runner that runs the trials (on this machine, on Slurm) and
// hands its observer, for each trial launched with a TrainerStateSource,
// the log_history entries of its newest checkpoint not handed over yet:
// every `poll`, and once more when the trial exits, before its exit. The
// history only grows (a resumed run keeps its checkpoint's), so the
// entries past those handed over are the new ones. An adopted trial's are
// handed over from the first (the observer skips those it stored). Reports
// have this one producer; their offset is -1 (none in stdout). Everything
// else passes through. Not thread-safe: the loop's thread.
class TrainerStateRunner : public TrialRunner, private RunnerObserver {
 public:
  using MakeRunner =
      std::function<std::unique_ptr<TrialRunner>(RunnerObserver& observer)>;
  TrainerStateRunner(boost::asio::io_context& io, RunnerObserver& observer,
                     std::chrono::milliseconds poll,
                     const MakeRunner& make_runner);

  core::Status Start(const TrialLaunch& launch) override;
  core::Status Adopt(const Adoption& adoption) override;
  void Stop(core::TrialId trial) override { inner_->Stop(trial); }
  void StopAfter(core::TrialId trial,
                 std::chrono::milliseconds delay) override {
    inner_->StopAfter(trial, delay);
  }
  void KillAll() override { inner_->KillAll(); }
  void Detach() override;
  size_t running() const override { return inner_->running(); }
  pid_t ShimPid(core::TrialId trial) const override {
    return inner_->ShimPid(trial);
  }
  std::optional<SupervisorId> Supervisor(core::TrialId trial) const override {
    return inner_->Supervisor(trial);
  }
  pid_t FindSupervisor(const std::optional<SupervisorId>& stored,
                       const std::string& status_path) const override {
    return inner_->FindSupervisor(stored, status_path);
  }

 private:
  struct Followed {
    TrainerStateSource source;
    size_t fed = 0;  // log_history entries handed over
  };
  // RunnerObserver: the inner runner's events.
  void OnMetrics(core::TrialId trial, core::Metrics metrics,
                 int64_t offset) override {
    observer_.OnMetrics(trial, std::move(metrics), offset);
  }
  void OnExit(core::TrialId trial, const TrialExit& exit) override;
  void OnNodeUsable(const std::string& node, bool usable) override {
    observer_.OnNodeUsable(node, usable);
  }
  void Follow(core::TrialId trial, const std::optional<TrainerStateSource>&);
  // Hands over the trial's new entries.
  void Feed(core::TrialId trial);
  void ArmPoll();

  RunnerObserver& observer_;
  std::chrono::milliseconds poll_;
  boost::asio::steady_timer timer_;
  bool armed_ = false;
  std::map<core::TrialId, Followed> followed_;
  std::unique_ptr<TrialRunner> inner_;
};

}  // namespace tuner::runner

#endif  // TUNER_TRIAL_RUNNER_PROCESSES_TRAINER_STATE_RUNNER_H_
