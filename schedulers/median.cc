#include "schedulers/median.h"

#include <cmath>

#include "schedulers/brackets.h"

namespace tuner::schedulers {

MedianScheduler::MedianScheduler(const core::SchedulerSpec& spec)
    : interval_(spec.grace_period),
      max_t_(spec.max_t),
      min_samples_(spec.min_samples),
      mode_(spec.mode) {}

std::vector<double> MedianScheduler::Milestones() const {
  std::vector<double> milestones;
  if (!max_t_) return {interval_};
  for (int64_t k = 1; !Reached(k * interval_, *max_t_) && k <= 1000; ++k)
    milestones.push_back(k * interval_);
  return milestones;
}

double MedianScheduler::MedianOf(const RankedRung& rung) const {
  int64_t n = rung.size();
  return (rung.ValueAt((n - 1) / 2) + rung.ValueAt(n / 2)) / 2;
}

core::Decision MedianScheduler::OnReport(core::TrialId trial, double time,
                                         double value) {
  core::Decision decision;
  // A non-finite time names no step (and inf overflowed the step's cast).
  if (!std::isfinite(time)) return decision;
  bool at_end = max_t_ && Reached(time, *max_t_);
  auto highest = static_cast<int64_t>(std::floor(time / interval_ + 1e-9));
  if (at_end)
    highest = std::min(
        highest,
        static_cast<int64_t>(std::ceil(*max_t_ / interval_ - 1e-9)) - 1);
  auto [it, fresh] = next_check_.try_emplace(trial, 1);
  if (highest >= it->second) {
    RankedRung& rung = checks_[highest];
    double internal = Internal(value, mode_);
    core::RungDecision d;
    d.rung = static_cast<int>(highest - 1);
    d.milestone = static_cast<double>(highest) * interval_;
    d.value = value;
    d.rank = rung.RankOf(internal);
    bool judged = rung.size() >= min_samples_;
    bool worse = judged && internal > MedianOf(rung);
    rung.Insert(internal);
    d.n = rung.size();
    bool stops = worse || !std::isfinite(value);
    d.verdict = stops ? core::RungVerdict::kStop : core::RungVerdict::kContinue;
    decision.rungs.push_back(d);
    it->second = highest + 1;
  }
  if (!std::isfinite(value) ||
      (!decision.rungs.empty() && !decision.rungs.back().continues())) {
    decision.action = core::Action::kStop;
  } else if (at_end) {
    decision.action = core::Action::kComplete;
  }
  if (decision.action != core::Action::kContinue) next_check_.erase(trial);
  return decision;
}

void MedianScheduler::Restore(core::TrialId trial,
                              const core::RungDecision& record) {
  int64_t k = record.rung + 1;
  checks_[k].Insert(Internal(record.value, mode_));
  int64_t& next = next_check_.try_emplace(trial, 1).first->second;
  next = std::max(next, k + 1);
}

}  // namespace tuner::schedulers
