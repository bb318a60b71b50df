#include "tuner/sweep/checkpoint_watch.h"

#include <spdlog/spdlog.h>

#include <utility>

#include "core/param_value.h"
#include "schedulers/brackets.h"
#include "trial_runner/output/trainer_state.h"

namespace tuner {

namespace {

// How far along a checkpoint is, on the time axis.
double Progress(const runner::Checkpoint& checkpoint,
                const std::string& time_attr) {
  return time_attr == "step" ? static_cast<double>(checkpoint.global_step)
                             : checkpoint.epoch;
}

}  // namespace

CheckpointWatch::CheckpointWatch(const ExperimentConfig& config, Clock& clock,
                                 CheckpointKeeper keeper, Sweep sweep)
    : config_(config),
      clock_(clock),
      keeper_(std::move(keeper)),
      sweep_(std::move(sweep)),
      timer_(clock.MakeTimer()) {}

double CheckpointWatch::SnapToRung(double time) const {
  // The Trainer's epoch is step / steps_per_epoch, so at a boundary it is off
  // only by the rounding of that division and of its print (0.9996, 2.0004;
  // older Trainers round to two decimals): under 0.01 of a unit, whatever the
  // epoch. A time that close to a rung (or to max_t) is that rung; any other
  // is kept, so a report at 99 is not max_t 100. Below one unit the
  // tolerance is 1% of the mark, so fractional rungs stay apart.
  std::vector<double> marks = sweep_.milestones();
  if (config_.scheduler.max_t) marks.push_back(*config_.scheduler.max_t);
  for (double mark : marks) {
    if (schedulers::NearMark(time, mark)) return mark;
  }
  return time;
}

void CheckpointWatch::PauseAt(core::TrialId trial,
                              const std::string& output_dir, double rung) {
  pauses_[trial] = {output_dir, rung, clock_.Now() + config_.checkpoints.wait};
  Check(trial);
  Arm();
}

void CheckpointWatch::Exited(core::TrialId trial) { pauses_.erase(trial); }

void CheckpointWatch::StopPolling() {
  timer_->Cancel();
  poll_timer_ = PollTimer::kIdle;
}

void CheckpointWatch::TrialEnded(core::TrialStatus status,
                                 std::optional<double> last_value,
                                 const std::string& output_dir) {
  keeper_.Ended(status, last_value, output_dir);
}

void CheckpointWatch::Arm() {
  if (poll_timer_ == PollTimer::kArmed) return;
  bool any = false;
  for (const auto& [trial, pause] : pauses_) any |= !pause.output_dir.empty();
  if (!any) return;
  poll_timer_ = PollTimer::kArmed;
  timer_->Schedule(config_.checkpoints.poll, [this] {
    poll_timer_ = PollTimer::kIdle;
    sweep_.enter([this] { Poll(); });
  });
}

void CheckpointWatch::Poll() {
  // Stopping a trial may call back (its exit): the ids are taken first.
  std::vector<core::TrialId> polled;
  for (const auto& [trial, pause] : pauses_) {
    if (!pause.output_dir.empty()) polled.push_back(trial);
  }
  for (core::TrialId trial : polled) {
    if (pauses_.count(trial) != 0) Check(trial);
  }
  Arm();
}

void CheckpointWatch::Check(core::TrialId trial) {
  auto it = pauses_.find(trial);
  const Pause& pause = it->second;
  auto saved =
      runner::ScanCheckpoints(pause.output_dir, config_.checkpoints.pattern);
  bool ready =
      !saved.empty() &&
      SnapToRung(Progress(saved.back(), config_.time_attr)) >= pause.rung;
  bool late = clock_.Now() >= pause.deadline;
  if (!ready && !late) return;
  if (!ready) {
    spdlog::warn(
        "trial {}: no checkpoint for rung {} after {} s; pausing "
        "without one (a promotion retrains it from the start)",
        trial, core::FormatDouble(pause.rung),
        config_.checkpoints.wait.count() / 1000);
  }
  pauses_.erase(it);
  sweep_.stop(trial);
}

}  // namespace tuner
