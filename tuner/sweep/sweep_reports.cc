// The parts of Sweep that take a trial's reports in (its ReportIntake says
// what a line is, and what the throttle stores), judge and store them.
#include <spdlog/spdlog.h>

#include <cmath>
#include <iterator>

#include "tuner/sweep/sweep.h"
#include "tuner/sweep/sweep_live_trial.h"

namespace tuner {

void Sweep::HandleMetrics(core::TrialId id, core::Metrics metrics,
                          int64_t offset) {
  auto it = live_.find(id);
  if (it == live_.end()) return;
  LiveTrial& trial = *it->second;
  if (!trial.life.Undecided()) return;  // decided: discarded
  auto report = trial.intake.Take(
      std::move(metrics), offset, trial.attempt,
      [this](double time) { return checkpoints_.SnapToRung(time); });
  if (!report) return;
  std::optional<double> time = report->time;
  std::optional<double> value = report->value;
  bool judged = value && time && (!trial.last_time || *time > *trial.last_time);
  bool admitted = trial.intake.Admit(Now());
  if (!judged) {
    if (admitted) StoreReport(trial, std::move(*report), false);
    if (!admitted) trial.intake.Withhold(std::move(*report), false);
    return;
  }
  core::Decision decision = scheduler_->OnReport(trial.id, *time, *value);
  // A decision (a rung, max_t, a stop) is always stored with its report.
  if (!admitted && decision.rungs.empty() &&
      decision.action == core::Action::kContinue) {
    trial.last_time = time;
    trial.last_value = value;
    ++trial.judged;
    trial.intake.Withhold(std::move(*report), true);
    return promotions_.EndStopped();
  }
  if (!StoreReport(trial, std::move(*report), true)) return;
  Judge(trial, *time, *value, decision);
}

bool Sweep::StoreReport(LiveTrial& trial, storage::ReportRecord report,
                        bool judged) {
  report.seq = ++trial.seq;
  if (!journal_.AppendReport(report, config_.mode)) return false;
  trial.intake.Stored(judged);
  return true;
}

void Sweep::StoreWithheld(LiveTrial& trial) {
  for (auto& w : trial.intake.TakeWithheld()) {
    if (!StoreReport(trial, std::move(w.report), w.judged)) return;
  }
}

void Sweep::Observe(const LiveTrial& trial, double time, double value) {
  searcher_->Observe(trial.index, trial.params, time, value);
}

void Sweep::PauseAtCheckpoint(LiveTrial& trial, double rung) {
  checkpoints_.PauseAt(trial.id, trial.output_dir, rung);
}

void Sweep::Judge(LiveTrial& trial, double time, double value,
                  const core::Decision& decision) {
  for (const auto& rung : decision.rungs) {
    if (!journal_.AppendDecision({trial.id, rung})) return;
  }
  trial.last_time = time;
  trial.last_value = value;
  ++trial.judged;
  for (const auto& rung : decision.rungs)
    Observe(trial, rung.milestone, rung.value);
  if (decision.action == core::Action::kComplete) Observe(trial, time, value);
  progress_.TrialReported(EventOf(trial), time, value, decision, counts_);
  if (decision.action == core::Action::kContinue) {
    return promotions_.EndStopped();
  }
  trial.life.Decided(decision.action);
  if (!journal_.Commit()) return;
  if (decision.action == core::Action::kComplete) {
    runner_->StopAfter(trial.id, config_.trial.stop_grace);
    return promotions_.EndStopped();
  }
  if (decision.rungs.empty()) {
    trial.stop_time = time;
    trial.reason = config_.metric + " is " + core::FormatDouble(value);
  } else {
    const core::RungDecision& rung = decision.rungs.back();
    trial.stop_time = rung.milestone;
    trial.reason =
        core::RungReason(rung, decision.action == core::Action::kPause);
    if (!std::isfinite(value)) trial.reason += ", non-finite value";
  }
  if (decision.action == core::Action::kPause &&
      !config_.checkpoints.dir.empty()) {
    PauseAtCheckpoint(trial, decision.rungs.back().milestone);
  } else {
    runner_->Stop(trial.id);
  }
  promotions_.EndStopped();  // may override this trial's pause with a stop
}

}  // namespace tuner
