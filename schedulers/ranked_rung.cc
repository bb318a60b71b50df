#include "schedulers/ranked_rung.h"

#include <cmath>
#include <limits>

namespace tuner::schedulers {

double Internal(double value, core::Mode mode) {
  if (!std::isfinite(value)) return std::numeric_limits<double>::infinity();
  return mode == core::Mode::kMax ? -value : value;
}

int64_t TopCount(int64_t n, double reduction_factor) {
  auto keep = static_cast<int64_t>(std::floor(n / reduction_factor));
  // n / rf may land just below an integer (e.g. 9 / 3.0000000001).
  if (static_cast<double>(keep + 1) * reduction_factor <= n * (1 + 1e-12))
    ++keep;
  return keep;
}

RankedRung::Key RankedRung::Insert(double internal) {
  Key key{internal, sequence_++};
  values_.insert(key);
  return key;
}

int64_t RankedRung::RankOf(double internal) const {
  Key lowest{internal, std::numeric_limits<int64_t>::min()};
  return static_cast<int64_t>(values_.order_of_key(lowest)) + 1;
}

double RankedRung::ValueAt(int64_t order) const {
  return values_.find_by_order(static_cast<size_t>(order))->first;
}

void RankedRung::AddCandidate(core::TrialId trial, Key key) {
  candidates_.emplace(key, trial);
  candidate_keys_[trial] = key;
}

void RankedRung::RemoveCandidate(core::TrialId trial) {
  auto it = candidate_keys_.find(trial);
  if (it == candidate_keys_.end()) return;
  candidates_.erase(it->second);
  candidate_keys_.erase(it);
}

std::optional<std::pair<core::TrialId, RankedRung::Key>>
RankedRung::BestCandidate() const {
  if (candidates_.empty()) return std::nullopt;
  const auto& [key, trial] = *candidates_.begin();
  return std::make_pair(trial, key);
}

}  // namespace tuner::schedulers
