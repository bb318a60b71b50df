#include "schedulers/candidate_set.h"

#include <algorithm>
#include <utility>

namespace tuner::schedulers {

CandidateSet::CandidateSet(std::vector<core::Params> candidates)
    : candidates_(std::move(candidates)),
      taken_(candidates_.size(), false),
      remaining_(candidates_.size()) {}

const core::Params& CandidateSet::Take(size_t i) {
  if (!taken_[i]) taken_[i] = true, --remaining_;
  return candidates_[i];
}

bool CandidateSet::TakeEqual(const core::Params& params) {
  for (size_t i = 0; i < candidates_.size(); ++i) {
    if (taken_[i] || candidates_[i] != params) continue;
    Take(i);
    return true;
  }
  return false;
}

std::vector<size_t> CandidateSet::Untaken() const {
  std::vector<size_t> untaken;
  untaken.reserve(remaining_);
  for (size_t i = 0; i < candidates_.size(); ++i)
    if (!taken_[i]) untaken.push_back(i);
  return untaken;
}

std::vector<size_t> CandidateSet::UntakenAtMost(size_t limit, Rng& rng) const {
  std::vector<size_t> ids = Untaken();
  if (ids.size() <= limit) return ids;
  for (size_t k = ids.size(); k > 1; --k) {  // Fisher-Yates
    auto j = static_cast<size_t>(rng.NextUnit() * static_cast<double>(k));
    std::swap(ids[k - 1], ids[j]);
  }
  ids.resize(limit);
  std::sort(ids.begin(), ids.end());
  return ids;
}

std::optional<size_t> CandidateSet::DrawUntaken(Rng& rng) const {
  if (remaining_ == 0) return std::nullopt;
  auto k =
      static_cast<size_t>(rng.NextUnit() * static_cast<double>(remaining_));
  for (size_t i = 0; i < candidates_.size(); ++i) {
    if (taken_[i]) continue;
    if (k-- == 0) return i;
  }
  return std::nullopt;
}

}  // namespace tuner::schedulers
