#include "schedulers/asha.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tuner::schedulers {

bool Reached(double time, double milestone) {
  return time >= milestone - 1e-9 * std::max(1.0, std::abs(milestone));
}

AshaScheduler::AshaScheduler(const core::SchedulerSpec& spec)
    : max_t_(spec.max_t.value_or(0)),
      reduction_factor_(spec.reduction_factor),
      mode_(spec.mode) {
  for (double m = spec.grace_period; !Reached(m, max_t_);
       m *= spec.reduction_factor) {
    milestones_.push_back(m);
  }
  rungs_.resize(milestones_.size());
}

double AshaScheduler::Internal(double value) const {
  if (!std::isfinite(value)) return std::numeric_limits<double>::infinity();
  return mode_ == core::Mode::kMax ? -value : value;
}

core::RungDecision AshaScheduler::Record(int rung, double value) {
  Rung& records = rungs_[rung];
  double internal = Internal(value);
  records.insert({internal, sequence_++});
  auto n = static_cast<int64_t>(records.size());
  // Strictly better values are those with a lower internal value.
  auto better = static_cast<int64_t>(
      records.order_of_key({internal, std::numeric_limits<int64_t>::min()}));
  auto keep = std::max<int64_t>(
      1, static_cast<int64_t>(std::floor(n / reduction_factor_)));
  core::RungDecision decision;
  decision.rung = rung;
  decision.milestone = milestones_[rung];
  decision.value = value;
  decision.rank = better + 1;
  decision.n = n;
  decision.continues = std::isfinite(value) && decision.rank <= keep;
  return decision;
}

core::Decision AshaScheduler::OnReport(core::TrialId trial, double time,
                                       double value) {
  core::Decision decision;
  int& next = next_rung_[trial];
  while (next < static_cast<int>(milestones_.size()) &&
         Reached(time, milestones_[next])) {
    decision.rungs.push_back(Record(next, value));
    ++next;
    if (!decision.rungs.back().continues) {
      decision.action = core::Action::kStop;
      return decision;
    }
  }
  if (!std::isfinite(value)) {
    decision.action = core::Action::kStop;
  } else if (Reached(time, max_t_)) {
    decision.action = core::Action::kComplete;
  }
  return decision;
}

void AshaScheduler::Restore(core::TrialId trial,
                            const core::RungDecision& record) {
  if (record.rung < 0 || record.rung >= static_cast<int>(rungs_.size())) return;
  rungs_[record.rung].insert({Internal(record.value), sequence_++});
  int& next = next_rung_[trial];
  next = std::max(next, record.rung + 1);
}

}  // namespace tuner::schedulers
