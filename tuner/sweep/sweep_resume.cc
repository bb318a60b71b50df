// Sweep::Resume: taking up an experiment a previous tuner left unfinished
// (killed, or stopped with --detach).
#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>

#include "trial_runner/devices/device_parsers.h"
#include "tuner/sweep/sweep.h"
#include "tuner/sweep/sweep_live_trial.h"
#include "tuner/sweep/trial_restorer.h"

namespace tuner {

void Sweep::Readopt(LiveTrial& trial, const storage::TrialRecord& row) {
  runner::Adoption adoption;
  adoption.trial = trial.id;
  adoption.launch =
      planner_.AdoptionOf(trial.id, trial.attempt, trial.output_dir);
  std::optional<runner::SupervisorId> stored;
  if (row.shim_pid && row.shim_start) {
    stored = runner::SupervisorId{static_cast<pid_t>(*row.shim_pid),
                                  *row.shim_start};
  }
  adoption.shim_pid =
      runner_->FindSupervisor(stored, adoption.launch.status_path);
  auto offset = store_.reports().LastOffset(trial.id, trial.attempt);
  if (offset.ok() && offset.value()) {
    adoption.stdout_offset = std::max<int64_t>(0, *offset.value());
  }
  auto held = store_.leases().Held(trial.id);
  // Adopt() reads the output written meanwhile, which may decide the trial
  // (and act on it); what was decided before the crash is acted on below.
  core::Action restored = trial.life.Verdict();
  trial.life.Adopted();
  if (runner_->Adopt(adoption).ok()) {
    if (held.ok() && held.value()) {
      auto ids = runner::ParseCpuList(held.value()->devices);
      if (ids.ok()) trial.lease = seats_.Adopt(ids.value(), held.value()->node);
      trial.lease_row = held.value()->id;
    }
    ++counts_.running;
    if (adoption.shim_pid > 0) {
      spdlog::info("trial {}: adopted (its shim or Slurm step: {})", trial.id,
                   adoption.shim_pid);
    } else {
      spdlog::info(
          "trial {}: adopted (its shim had ended: its output and status are "
          "read)",
          trial.id);
    }
    ActOnRestored(trial, restored);
    return;
  }
  if (held.ok() && held.value()) journal_.CloseLease(held.value()->id);
  core::TrialId id = trial.id;
  TrialPhase phase = trial.life.phase();
  if (phase == TrialPhase::kStopping || phase == TrialPhase::kCompleting) {
    Finish(trial,
           phase == TrialPhase::kStopping ? core::TrialStatus::kStopped
                                          : core::TrialStatus::kCompleted,
           trial.reason);
    live_.erase(id);
    return;
  }
  spdlog::warn("trial {}: gone without an exit status; relaunching it", id);
  Relaunch(trial);
}

void Sweep::ActOnRestored(LiveTrial& trial, core::Action verdict) {
  switch (verdict) {
    case core::Action::kContinue:
      return;
    case core::Action::kComplete:  // it may still exit by itself
      return runner_->StopAfter(trial.id, config_.trial.stop_grace);
    case core::Action::kPause:
      if (!config_.checkpoints.dir.empty() && trial.stop_time) {
        return PauseAtCheckpoint(trial, *trial.stop_time);  // wait again
      }
      return runner_->Stop(trial.id);
    case core::Action::kStop:
      return runner_->Stop(trial.id);
  }
}

void Sweep::TakeUp(TrialRestorer& restorer, const storage::TrialRecord& row) {
  auto owned = restorer.Rebuild(row);
  LiveTrial& trial = *owned;
  trial.output_dir = planner_.OutputDir(trial.id, trial.params);
  if (trial.life.phase() == TrialPhase::kPaused) {
    promotions_.Restore(std::move(owned));
    return;
  }
  live_.emplace(row.id, std::move(owned));
  if (row.status == core::TrialStatus::kRunning) {
    Readopt(trial, row);
  } else if (row.attempts > 0) {
    // Promoted before its relaunch was committed, or interrupted.
    Relaunch(trial);
  } else {
    StartOrQueue(trial);
  }
}

core::Status Sweep::ResumeUnguarded(
    const storage::ExperimentRecord& experiment) {
  experiment_ = experiment.id;
  RefreshBudget(false);  // an extension since it ended
  auto rows = store_.trials().List(experiment_);
  if (!rows.ok()) return rows.status();
  TrialRestorer restorer(config_, store_, journal_);
  restorer.RestoreScheduler(experiment_, rows.value(), *scheduler_, *searcher_);
  next_index_ = static_cast<int64_t>(rows.value().size());
  counts_.started = next_index_;
  for (const auto& row : rows.value()) {
    if (TrialRestorer::Interrupted(row)) {
      TakeUp(restorer, row);
      continue;
    }
    switch (row.status) {
      case core::TrialStatus::kCompleted:
        ++counts_.completed;
        break;
      case core::TrialStatus::kStopped:
        ++counts_.stopped;
        break;
      case core::TrialStatus::kFailed:
        ++counts_.failed;
        break;
      case core::TrialStatus::kPaused:
      case core::TrialStatus::kRunning:
      case core::TrialStatus::kPending:
        TakeUp(restorer, row);
        break;
    }
    if (TrialRestorer::Ended(row)) {
      // Counted among the checkpoints keep_best keeps.
      checkpoints_.TrialEnded(row.status, row.last_value,
                              planner_.OutputDir(row.id, row.params));
    }
  }
  TUNER_RETURN_IF_ERROR(journal_.ExperimentResumed(experiment_));
  FillSlots();
  CheckDone();
  return core::Status::Ok();
}

}  // namespace tuner
