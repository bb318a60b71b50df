// The parts of Sweep that follow a trial's checkpoints: pausing once the
// rung's checkpoint is complete, and handing ended trials to keep_best
// (CheckpointKeeper). Reports from trainer_state.json come through the
// runner (TrainerStateRunner).
#include <glob.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "schedulers/brackets.h"
#include "trial_runner/output/trainer_state.h"
#include "tuner/base/lexical_path.h"
#include "tuner/base/one_line.h"
#include "tuner/base/remove_tree.h"
#include "tuner/sweep/experiment_lifecycle.h"
#include "tuner/sweep/sweep.h"
#include "tuner/sweep/sweep_live_trial.h"

namespace tuner {

namespace {

// How far along a checkpoint is, on the time axis.
double Progress(const runner::Checkpoint& checkpoint,
                const std::string& time_attr) {
  return time_attr == "step" ? static_cast<double>(checkpoint.global_step)
                             : checkpoint.epoch;
}

}  // namespace

double Sweep::SnapToRung(double time) const {
  // The Trainer's epoch is step / steps_per_epoch, so at a boundary it is off
  // only by the rounding of that division and of its print (0.9996, 2.0004;
  // older Trainers round to two decimals): under 0.01 of a unit, whatever the
  // epoch. A time that close to a rung (or to max_t) is that rung; any other
  // is kept, so a report at 99 is not max_t 100. Below one unit the
  // tolerance is 1% of the mark, so fractional rungs stay apart.
  std::vector<double> marks = scheduler_->Milestones();
  if (config_.scheduler.max_t) marks.push_back(*config_.scheduler.max_t);
  for (double mark : marks) {
    if (schedulers::NearMark(time, mark)) return mark;
  }
  return time;
}

bool Sweep::WantsPolling(const LiveTrial& trial) const {
  if (trial.output_dir.empty() || trial.attempt == 0) return false;
  return trial.pause_at.has_value();
}

void Sweep::WatchCheckpoints() {
  if (checkpoint_armed_) return;
  bool any = std::any_of(live_.begin(), live_.end(), [this](const auto& t) {
    return WantsPolling(*t.second);
  });
  if (!any) return;
  checkpoint_armed_ = true;
  checkpoint_timer_->Schedule(config_.checkpoints.poll, [this] {
    checkpoint_armed_ = false;
    Guarded("a checkpoint poll", [this] { PollCheckpoints(); });
  });
}

void Sweep::PollCheckpoints() {
  std::vector<core::TrialId> ids;
  for (const auto& [id, trial] : live_)
    if (WantsPolling(*trial)) ids.push_back(id);
  for (core::TrialId id : ids) {
    auto it = live_.find(id);
    if (it == live_.end()) continue;
    CheckPause(*it->second);
  }
  WatchCheckpoints();
}

void Sweep::PauseAtCheckpoint(LiveTrial& trial, double milestone) {
  trial.pause_at = milestone;
  trial.pause_deadline = Now() + config_.checkpoints.wait;
  CheckPause(trial);
  WatchCheckpoints();
}

void Sweep::CheckPause(LiveTrial& trial) {
  auto saved =
      runner::ScanCheckpoints(trial.output_dir, config_.checkpoints.pattern);
  bool ready =
      !saved.empty() &&
      SnapToRung(Progress(saved.back(), config_.time_attr)) >= *trial.pause_at;
  bool late = Now() >= trial.pause_deadline;
  if (!ready && !late) return;
  if (!ready) {
    spdlog::warn(
        "trial {}: no checkpoint for rung {} after {} s; pausing "
        "without one (a promotion retrains it from the start)",
        trial.id, core::FormatDouble(*trial.pause_at),
        config_.checkpoints.wait.count() / 1000);
  }
  trial.pause_at.reset();
  runner_->Stop(trial.id);
}

void Sweep::PruneCheckpoints(const LiveTrial& trial, core::TrialStatus status) {
  checkpoints_.Ended(status, trial.last_value, trial.output_dir);
}

void Sweep::KeepCheckpoints(const storage::TrialRecord& row) {
  checkpoints_.Ended(row.status, row.last_value,
                     planner_.OutputDir(row.id, row.params));
}

}  // namespace tuner
