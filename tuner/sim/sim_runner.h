// SimRunner: runs trials in simulated time. Each trial replays one row of
// a curve table: its reports arrive on the Clock, each `seconds` after the
// one before. Nothing is spawned and no file is written.
#ifndef TUNER_TUNER_SIM_SIM_RUNNER_H_
#define TUNER_TUNER_SIM_SIM_RUNNER_H_

#include <boost/asio/io_context.hpp>
#include <functional>
#include <memory>
#include <unordered_map>
#include <utility>  // before Asio: Boost 1.74 with GCC 12 needs it

#include "trial_runner/trial_runner.h"
#include "tuner/base/clock.h"
#include "tuner/sim/curve_table.h"

namespace tuner::sim {

// Like LocalRunner it never calls the observer from inside one of the
// sweep's calls: reports come from the clock's timers, exits are posted to
// the loop. A trial started again (a retry, a promotion) goes on from the
// step after its last report, as if it checkpointed at every report.
// Stop, StopAfter's stop and KillAll end a trial at once (no grace).
// A trial exits 0 after its row's last step, 1 when the row diverged.
class SimRunner : public runner::TrialRunner {
 public:
  // The row a trial replays; an error fails its start.
  using RowFor =
      std::function<core::Result<const CurveRow*>(core::TrialId trial)>;

  SimRunner(boost::asio::io_context& io, runner::RunnerObserver& observer,
            Clock& clock, RowFor row_for);
  ~SimRunner() override;

  core::Status Start(const runner::TrialLaunch& launch) override;
  core::Status Adopt(const runner::Adoption& adoption) override;
  void Stop(core::TrialId trial) override;
  void StopAfter(core::TrialId trial, std::chrono::milliseconds delay) override;
  void KillAll() override;
  void Detach() override;
  size_t running() const override { return running_.size(); }

  // Simulated seconds trials ran, summed over every attempt that ended.
  double device_seconds() const { return device_seconds_; }
  // Trials that reached the end of a row marked truncated (see CurveRow).
  int64_t truncated_ends() const { return truncated_ends_; }

 private:
  struct Attempt {
    const CurveRow* row = nullptr;
    size_t next = 0;  // the step it reports next
    Clock::TimePoint started;
    std::unique_ptr<Clock::Timer> step_timer;
    std::unique_ptr<Clock::Timer> stop_timer;
    bool ending = false;  // its exit is posted
  };
  void ScheduleStep(core::TrialId trial, Attempt& attempt);
  void Deliver(core::TrialId trial);
  void End(core::TrialId trial, runner::TrialExit exit);

  boost::asio::io_context& io_;
  runner::RunnerObserver& observer_;
  Clock& clock_;
  RowFor row_for_;
  std::unordered_map<core::TrialId, Attempt> running_;
  std::unordered_map<core::TrialId, size_t> reached_;  // steps reported
  double device_seconds_ = 0;
  int64_t truncated_ends_ = 0;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace tuner::sim

#endif  // TUNER_TUNER_SIM_SIM_RUNNER_H_
