// A finite list of configurations a searcher chooses among, each at most
// once (e.g. the rows of a table a simulation replays).
#ifndef TUNER_SCHEDULERS_CANDIDATE_SET_H_
#define TUNER_SCHEDULERS_CANDIDATE_SET_H_

#include <cstddef>
#include <optional>
#include <vector>

#include "core/param_value.h"
#include "schedulers/sampling.h"

namespace tuner::schedulers {

class CandidateSet {
 public:
  explicit CandidateSet(std::vector<core::Params> candidates);

  size_t size() const { return candidates_.size(); }
  size_t remaining() const { return remaining_; }
  const core::Params& at(size_t i) const { return candidates_[i]; }
  bool taken(size_t i) const { return taken_[i]; }

  // Marks candidate `i` taken; returns its params.
  const core::Params& Take(size_t i);
  // Marks the first untaken candidate equal to `params` taken (a trial
  // that was suggested before a restart); false where there is none.
  bool TakeEqual(const core::Params& params);
  // The untaken candidates, in list order.
  std::vector<size_t> Untaken() const;
  // At most `limit` of the untaken candidates, in list order: all, or
  // `limit` drawn uniformly without replacement.
  std::vector<size_t> UntakenAtMost(size_t limit, Rng& rng) const;
  // An untaken candidate drawn uniformly; none when all are taken.
  std::optional<size_t> DrawUntaken(Rng& rng) const;

 private:
  std::vector<core::Params> candidates_;
  std::vector<bool> taken_;
  size_t remaining_;
};

}  // namespace tuner::schedulers

#endif  // TUNER_SCHEDULERS_CANDIDATE_SET_H_
