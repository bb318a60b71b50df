// The parts of Sweep that follow a trial's checkpoints: pausing once the
// rung's checkpoint is complete, and deleting the checkpoints of stopped
// trials (keep_best). Reports from trainer_state.json come through the
// runner (TrainerStateRunner).
#include <glob.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "schedulers/brackets.h"
#include "trial_runner/trainer_state.h"
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
  if (status != core::TrialStatus::kStopped &&
      status != core::TrialStatus::kFailed) {
    return;
  }
  KeepBest(trial.last_value, trial.output_dir);
}

void Sweep::KeepCheckpoints(const storage::TrialRecord& row) {
  if (row.status != core::TrialStatus::kStopped &&
      row.status != core::TrialStatus::kFailed) {
    return;
  }
  KeepBest(row.last_value, OutputDir(row.id, row.params));
}

void Sweep::KeepBest(std::optional<double> last_value,
                     const std::string& output_dir) {
  if (config_.checkpoints.keep_best < 0 || output_dir.empty()) return;
  double value = last_value.value_or(NAN);
  double goodness = !std::isfinite(value)              ? -INFINITY
                    : config_.mode == core::Mode::kMax ? value
                                                       : -value;
  kept_checkpoints_.emplace_back(goodness, output_dir);
  std::sort(kept_checkpoints_.begin(), kept_checkpoints_.end(),
            [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string first = config_.checkpoints.pattern.substr(
      0, config_.checkpoints.pattern.find('/'));
  while (kept_checkpoints_.size() >
         static_cast<size_t>(config_.checkpoints.keep_best)) {
    std::string dir = kept_checkpoints_.back().second;
    kept_checkpoints_.pop_back();
    glob_t matches{};
    if (glob((dir + "/" + first).c_str(), 0, nullptr, &matches) == 0) {
      for (size_t i = 0; i < matches.gl_pathc; ++i) {
        RemoveCheckpoint(matches.gl_pathv[i]);
      }
    }
    globfree(&matches);
  }
}

void Sweep::RemoveCheckpoint(const std::filesystem::path& path) const {
  namespace fs = std::filesystem;
  fs::path root = CheckpointWalkRoot(config_.checkpoints.dir, config_.workdir,
                                     fs::absolute(options_.trials_root));
  fs::path full = path.is_absolute() ? path : config_.workdir / path;
  fs::path below = full.lexically_normal().lexically_relative(root);
  bool inside = !below.empty() && *below.begin() != ".." && below != ".";
  // Outside the trial directories, only the original database's own.
  bool foreign = !options_.original_database &&
                 !Inside(full, fs::absolute(options_.trials_root));
  TreeRemoval removal;
  if (!inside) {
    removal = {TreeRemoval::kFailed,
               path.string() + ": not inside " + root.string()};
  } else if (foreign) {
    removal = {TreeRemoval::kFailed,
               path.string() +
                   ": this database is not the file the experiment was "
                   "created in (a copy?): remove it yourself if it is this "
                   "experiment's"};
  } else {
    removal = RemoveTreeBelow(root, below);
  }
  if (removal.kind == TreeRemoval::kLink ||
      removal.kind == TreeRemoval::kFailed) {
    spdlog::warn("keep_best: {} left in place ({})", OneLine(path.string()),
                 OneLine(removal.why));
  }
}

}  // namespace tuner
