// Sweep::Resume: taking up an experiment a previous tuner left unfinished
// (killed, or stopped with --detach).
#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>

#include "schedulers/brackets.h"
#include "trial_runner/device_parsers.h"
#include "tuner/config/launch_spec.h"
#include "tuner/sweep/sweep.h"
#include "tuner/sweep/sweep_live_trial.h"

namespace tuner {

namespace {

bool EndedRow(const storage::TrialRecord& row) {
  return row.status == core::TrialStatus::kCompleted ||
         row.status == core::TrialStatus::kStopped ||
         row.status == core::TrialStatus::kFailed;
}

// A trial a graceful stop ended, recorded as stopped with this reason (a
// database may hold such rows; such a trial now goes back to pending):
// taken up again like a pending one.
bool Interrupted(const storage::TrialRecord& row) {
  return row.status == core::TrialStatus::kStopped &&
         (row.reason == "interrupted" ||
          row.reason == "interrupted while waiting for a device");
}

// The attempt whose report first reached `milestone` (0: none did).
int64_t AttemptReaching(const std::vector<storage::ReportRecord>& reports,
                        double milestone) {
  for (const auto& r : reports) {
    if (r.time && r.value && schedulers::Reached(*r.time, milestone))
      return r.attempt;
  }
  return 0;
}

}  // namespace

void Sweep::RestoreScheduler(const std::vector<storage::TrialRecord>& rows) {
  std::vector<const storage::TrialRecord*> by_index;
  std::unordered_map<core::TrialId, const storage::TrialRecord*> by_id;
  for (const auto& row : rows) by_index.push_back(&row), by_id[row.id] = &row;
  std::sort(by_index.begin(), by_index.end(),
            [](auto* a, auto* b) { return a->index < b->index; });
  for (const auto* row : by_index) scheduler_->OnAdd(row->id, row->index);
  auto decisions = store_.ListDecisions(experiment_);
  if (!journal_.Note(decisions.status())) return;
  for (const auto& d : decisions.value()) {
    scheduler_->Restore(d.trial, d.decision);
    const auto* row = by_id[d.trial];
    if (row && d.decision.verdict != core::RungVerdict::kPromote) {
      searcher_->Observe(row->index, row->params, d.decision.milestone,
                         d.decision.value);
    }
    last_decision_[d.trial] = d.decision;
  }
  for (const auto& row : rows) {
    if (!EndedRow(row) || Interrupted(row)) continue;
    scheduler_->OnEnd(row.id);
    if (row.status == core::TrialStatus::kCompleted && row.last_time &&
        row.last_value) {
      searcher_->Observe(row.index, row.params, *row.last_time,
                         *row.last_value);
    }
  }
}

// Every field of LiveTrial is either rebuilt here from what is stored, or
// transient: `lease`, `lease_row` (Readopt), `ports` (see Readopt),
// `exit_code` (set at exit), `pause_at` and
// `pause_deadline` (Readopt pauses again), `resumed_from` (unused once
// launched). An adopted trial's trainer_state entries are read again from
// the first, the stored reports skipped through its intake's replay.
std::unique_ptr<Sweep::LiveTrial> Sweep::Rebuild(
    const storage::TrialRecord& row) {
  auto trial = std::make_unique<LiveTrial>(row.id, config_);
  trial->index = row.index;
  trial->params = row.params;
  trial->attempt = static_cast<int>(row.attempts);
  auto retries = store_.Retries(row.id);
  if (journal_.Note(retries.status())) {
    trial->failures = static_cast<int>(retries.value().failures);
    trial->device_retries = static_cast<int>(retries.value().device_retries);
  }
  TrialPhase phase = TrialPhase::kQueued;
  auto reports = store_.ListReports(row.id);
  if (journal_.Note(reports.status())) {
    RestoreReports(*trial, reports.value());
    phase = RestoredPhase(*trial, row, reports.value());
  }
  if (row.status == core::TrialStatus::kPaused) {
    trial->reason = row.reason;
    phase = Promoted(row) ? TrialPhase::kQueued : TrialPhase::kPaused;
  } else if (row.status != core::TrialStatus::kRunning) {
    phase = TrialPhase::kQueued;  // relaunched or launched
  }
  trial->life.Restore(phase);
  trial->output_dir = OutputDir(trial->id, trial->params);
  return trial;
}

void Sweep::RestoreReports(LiveTrial& trial,
                           const std::vector<storage::ReportRecord>& reports) {
  bool this_attempt = false;      // a report of the attempt running now
  std::optional<double> counted;  // its last objective report's time
  std::optional<double> replay_until;
  for (const auto& r : reports) {
    trial.seq = std::max(trial.seq, r.seq);
    trial.intake.Saw(r.metrics);
    this_attempt |= r.attempt == trial.attempt;
    if (!r.time) continue;
    if (r.attempt == trial.attempt) counted = *r.time;  // NaN ones count too
    if (!r.value) continue;
    if (!trial.last_time || *r.time > *trial.last_time) {
      ++trial.judged;
      trial.last_time = r.time;
      trial.last_value = r.value;
    }
    // Relaunch() made the attempt skip what the earlier ones reported.
    if (r.attempt < trial.attempt) replay_until = trial.last_time;
  }
  // Trainer states are fed again from their first entry.
  if (config_.metrics_format == "trainer_state") replay_until = trial.last_time;
  // Under time_attr "report" a report's time is its number in the attempt:
  // the attempt's last stored one tells how many came before the stored
  // offset; if it stored none with the objective, it was still repeating
  // (not stored) the reports up to `replay_until`.
  int64_t attempt_reports = 0;
  if (config_.time_attr == "report" && counted) {
    attempt_reports = static_cast<int64_t>(*counted);
  } else if (config_.time_attr == "report" && this_attempt) {
    attempt_reports = static_cast<int64_t>(replay_until.value_or(0));
  }
  trial.intake.Resume(attempt_reports, replay_until);
}

TrialPhase Sweep::RestoredPhase(
    LiveTrial& trial, const storage::TrialRecord& row,
    const std::vector<storage::ReportRecord>& reports) {
  if (auto it = last_decision_.find(row.id); it != last_decision_.end()) {
    const core::RungDecision& d = it->second;
    // Promoted while its pause was under way, before the pausing attempt
    // ended: it goes on once that attempt has exited.
    bool promoted_pausing =
        d.verdict == core::RungVerdict::kPromote &&
        row.status == core::TrialStatus::kRunning &&
        AttemptReaching(reports, d.milestone) == trial.attempt;
    if (d.verdict == core::RungVerdict::kStop ||
        d.verdict == core::RungVerdict::kPause || promoted_pausing) {
      trial.stop_time = d.milestone;
      trial.reason =
          core::RungReason(d, d.verdict == core::RungVerdict::kPause);
      if (d.verdict == core::RungVerdict::kStop) return TrialPhase::kStopping;
      return promoted_pausing ? TrialPhase::kResuming : TrialPhase::kPausing;
    }
  }
  // A report at max_t completed it (no rung record says so).
  if (trial.last_time && config_.scheduler.max_t &&
      schedulers::Reached(*trial.last_time, *config_.scheduler.max_t)) {
    return TrialPhase::kCompleting;
  }
  return TrialPhase::kRunning;
}

bool Sweep::Promoted(const storage::TrialRecord& row) const {
  auto it = last_decision_.find(row.id);
  return it != last_decision_.end() &&
         it->second.verdict == core::RungVerdict::kPromote;
}

runner::TrialLaunch Sweep::AdoptionLaunch(const LiveTrial& trial) const {
  std::string dir = TrialDir(trial.id);
  runner::TrialLaunch launch;
  launch.trial = trial.id;
  launch.spawn.stdout_path = dir + "/stdout.log";
  launch.spawn.stderr_path = dir + "/stderr.log";
  launch.status_path = AttemptStatusPath(dir, trial.attempt);
  launch.metrics = MetricFormatFor(config_);
  launch.trainer_state = TrainerStateOf(trial);
  return launch;
}

void Sweep::Readopt(LiveTrial& trial, const storage::TrialRecord& row) {
  runner::Adoption adoption;
  adoption.trial = trial.id;
  adoption.launch = AdoptionLaunch(trial);
  std::optional<runner::SupervisorId> stored;
  if (row.shim_pid && row.shim_start) {
    stored = runner::SupervisorId{static_cast<pid_t>(*row.shim_pid),
                                  *row.shim_start};
  }
  adoption.shim_pid =
      runner_->FindSupervisor(stored, adoption.launch.status_path);
  auto offset = store_.LastOffset(trial.id, trial.attempt);
  if (offset.ok() && offset.value()) {
    adoption.stdout_offset = std::max<int64_t>(0, *offset.value());
  }
  auto held = store_.HeldLease(trial.id);
  // Adopt() reads the output written meanwhile, which may decide the trial
  // (and act on it); what was decided before the crash is acted on below.
  core::Action restored = trial.life.Verdict();
  trial.life.Adopted();
  if (runner_->Adopt(adoption).ok()) {
    if (held.ok() && held.value()) {
      auto ids = runner::ParseCpuList(held.value()->devices);
      if (ids.ok()) trial.lease = pool_.Adopt(ids.value(), held.value()->node);
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

void Sweep::TakeUp(const storage::TrialRecord& row) {
  auto owned = Rebuild(row);
  LiveTrial& trial = *owned;
  if (trial.life.phase() == TrialPhase::kPaused) {
    ++counts_.paused;
    paused_.emplace(row.id, std::move(owned));
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
  auto rows = store_.ListTrials(experiment_);
  if (!rows.ok()) return rows.status();
  RestoreScheduler(rows.value());
  next_index_ = static_cast<int64_t>(rows.value().size());
  counts_.started = next_index_;
  for (const auto& row : rows.value()) {
    if (Interrupted(row)) {
      TakeUp(row);
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
        TakeUp(row);
        break;
    }
    if (EndedRow(row)) KeepCheckpoints(row);
  }
  TUNER_RETURN_IF_ERROR(journal_.ExperimentResumed(experiment_));
  FillSlots();
  CheckDone();
  return core::Status::Ok();
}

}  // namespace tuner
