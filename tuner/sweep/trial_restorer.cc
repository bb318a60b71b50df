#include "tuner/sweep/trial_restorer.h"

#include <algorithm>
#include <unordered_map>

#include "schedulers/brackets.h"
#include "tuner/sweep/sweep_live_trial.h"

namespace tuner {

namespace {

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

TrialRestorer::TrialRestorer(const ExperimentConfig& config,
                             storage::TrialStore& store, Journal& journal)
    : config_(config), store_(store), journal_(journal) {}

bool TrialRestorer::Ended(const storage::TrialRecord& row) {
  return row.status == core::TrialStatus::kCompleted ||
         row.status == core::TrialStatus::kStopped ||
         row.status == core::TrialStatus::kFailed;
}

bool TrialRestorer::Interrupted(const storage::TrialRecord& row) {
  return row.status == core::TrialStatus::kStopped &&
         (row.reason == "interrupted" ||
          row.reason == "interrupted while waiting for a device");
}

void TrialRestorer::RestoreScheduler(
    storage::ExperimentId experiment,
    const std::vector<storage::TrialRecord>& rows,
    schedulers::TrialScheduler& scheduler, schedulers::Searcher& searcher) {
  std::vector<const storage::TrialRecord*> by_index;
  std::unordered_map<core::TrialId, const storage::TrialRecord*> by_id;
  for (const auto& row : rows) by_index.push_back(&row), by_id[row.id] = &row;
  std::sort(by_index.begin(), by_index.end(),
            [](auto* a, auto* b) { return a->index < b->index; });
  for (const auto* row : by_index) scheduler.OnAdd(row->id, row->index);
  auto decisions = store_.reports().ListDecisions(experiment);
  if (!journal_.Note(decisions.status())) return;
  for (const auto& d : decisions.value()) {
    scheduler.Restore(d.trial, d.decision);
    const auto* row = by_id[d.trial];
    if (row && d.decision.verdict != core::RungVerdict::kPromote) {
      searcher.Observe(row->index, row->params, d.decision.milestone,
                       d.decision.value);
    }
    last_decision_[d.trial] = d.decision;
  }
  for (const auto& row : rows) {
    if (!Ended(row) || Interrupted(row)) continue;
    scheduler.OnEnd(row.id);
    if (row.status == core::TrialStatus::kCompleted && row.last_time &&
        row.last_value) {
      searcher.Observe(row.index, row.params, *row.last_time, *row.last_value);
    }
  }
}

// Every field of LiveTrial is either rebuilt here from what is stored, or
// set by the sweep: `output_dir`, `lease`, `lease_row`, `ports` (when it
// adopts or launches it), `exit_code` (at exit), `resumed_from` (unused
// once launched); an adopted pause waits again for its checkpoint in the
// sweep's CheckpointWatch. An adopted trial's trainer_state entries are
// read again from the first, the stored reports skipped through its
// intake's replay.
std::unique_ptr<LiveTrial> TrialRestorer::Rebuild(
    const storage::TrialRecord& row) {
  auto trial = std::make_unique<LiveTrial>(row.id, config_);
  trial->index = row.index;
  trial->params = row.params;
  trial->attempt = static_cast<int>(row.attempts);
  auto retries = store_.trials().Retries(row.id);
  if (journal_.Note(retries.status())) {
    trial->failures = static_cast<int>(retries.value().failures);
    trial->device_retries = static_cast<int>(retries.value().device_retries);
  }
  TrialPhase phase = TrialPhase::kQueued;
  auto reports = store_.reports().List(row.id);
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
  return trial;
}

void TrialRestorer::RestoreReports(
    LiveTrial& trial, const std::vector<storage::ReportRecord>& reports) {
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

TrialPhase TrialRestorer::RestoredPhase(
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

bool TrialRestorer::Promoted(const storage::TrialRecord& row) const {
  auto it = last_decision_.find(row.id);
  return it != last_decision_.end() &&
         it->second.verdict == core::RungVerdict::kPromote;
}

}  // namespace tuner
