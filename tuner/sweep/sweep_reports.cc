// The parts of Sweep that take a trial's reports in: time and rung, the
// report throttle (what is stored, what is withheld), and judging.
#include <spdlog/spdlog.h>

#include <cmath>
#include <iterator>

#include "tuner/sweep/sweep.h"
#include "tuner/sweep/sweep_live_trial.h"

namespace tuner {

namespace {

// Drops the withheld reports a newer one supersedes: a judged report
// supersedes every withheld one, any report the unjudged ones. What is
// left (the newest judged report, then the newest after it) keeps order.
void DropSuperseded(std::vector<WithheldReport>& withheld, bool judged) {
  std::erase_if(withheld, [judged](const WithheldReport& w) {
    return judged || !w.judged;
  });
}

}  // namespace

void SeenKeys::Add(const core::Metrics& metrics) {
  for (const auto& [name, value] : metrics) {
    if (keys_.size() == kMax && name >= *keys_.rbegin()) {
      more_ |= !keys_.count(name);
      continue;
    }
    keys_.insert(name);
    if (keys_.size() > kMax) {
      keys_.erase(std::prev(keys_.end()));
      more_ = true;
    }
  }
}

std::string SeenKeys::Text() const {
  std::string text;
  for (const auto& name : keys_) text += (text.empty() ? "" : ", ") + name;
  if (more_) text += ", ... (more than " + std::to_string(kMax) + ")";
  return text;
}

void Sweep::HandleMetrics(core::TrialId id, core::Metrics metrics,
                          int64_t offset) {
  auto it = live_.find(id);
  if (it == live_.end()) return;
  LiveTrial& trial = *it->second;
  if (!trial.life.Undecided()) return;  // decided: discarded
  std::optional<double> value = core::FindMetric(metrics, config_.metric);
  std::optional<double> time;
  if (config_.time_attr != "report") {
    time = core::FindMetric(metrics, config_.time_attr);
    if (time && !std::isfinite(*time)) return SkipNonFiniteTime(trial, *time);
  }
  if (value) ++trial.attempt_reports;
  if (config_.time_attr == "report" && value) time = trial.attempt_reports;
  if (time) time = SnapToRung(*time);
  if (trial.replay_until && time && *time <= *trial.replay_until) return;
  // A line without the objective while a retry repeats its reports was
  // stored by an earlier attempt (and a tuner adopting this attempt counts
  // its reports from the stored ones: sweep_resume.cc).
  if (trial.replay_until && !time && config_.time_attr == "report" &&
      trial.attempt_reports < *trial.replay_until) {
    return;
  }
  trial.seen_keys.Add(metrics);
  storage::ReportRecord report{
      id, 0, time, value, std::move(metrics), trial.attempt, offset};
  bool judged = value && time && (!trial.last_time || *time > *trial.last_time);
  bool admitted = trial.throttle.Admit(Now());
  if (!judged) {
    if (admitted) StoreReport(trial, std::move(report), false);
    if (!admitted) Withhold(trial, std::move(report), false);
    return;
  }
  core::Decision decision = scheduler_->OnReport(trial.id, *time, *value);
  // A decision (a rung, max_t, a stop) is always stored with its report.
  if (!admitted && decision.rungs.empty() &&
      decision.action == core::Action::kContinue) {
    trial.last_time = time;
    trial.last_value = value;
    ++trial.judged;
    Withhold(trial, std::move(report), true);
    return EndStoppedPaused();
  }
  if (!StoreReport(trial, std::move(report), true)) return;
  Judge(trial, *time, *value, decision);
}

void Sweep::SkipNonFiniteTime(LiveTrial& trial, double time) {
  if (trial.warned_time) return;
  trial.warned_time = true;
  spdlog::warn(
      "trial {}: a report with {} = {} is not a report (ignored; warned once "
      "per trial)",
      trial.id, config_.time_attr, core::FormatDouble(time));
}

bool Sweep::StoreReport(LiveTrial& trial, storage::ReportRecord report,
                        bool judged) {
  report.seq = ++trial.seq;
  if (!journal_.AppendReport(report, config_.mode)) return false;
  DropSuperseded(trial.withheld, judged);
  return true;
}

void Sweep::Withhold(LiveTrial& trial, storage::ReportRecord report,
                     bool judged) {
  if (!trial.warned_flood) {
    trial.warned_flood = true;
    spdlog::warn(
        "trial {} reports faster than {} a second: storing that many, every "
        "report a decision was taken on, and the newest when it ends",
        trial.id, core::FormatDouble(ReportThrottle::kPerSecond));
  }
  DropSuperseded(trial.withheld, judged);
  trial.withheld.push_back({std::move(report), judged});
}

void Sweep::StoreWithheld(LiveTrial& trial) {
  std::vector<WithheldReport> withheld = std::move(trial.withheld);
  trial.withheld.clear();
  for (auto& w : withheld) {
    if (!StoreReport(trial, std::move(w.report), w.judged)) return;
  }
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
  if (decision.action == core::Action::kContinue) return EndStoppedPaused();
  trial.life.Decided(decision.action);
  if (!journal_.Commit()) return;
  if (decision.action == core::Action::kComplete) {
    runner_->StopAfter(trial.id, config_.trial.stop_grace);
    return EndStoppedPaused();
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
  EndStoppedPaused();  // may override this trial's pause with a stop
}

}  // namespace tuner
