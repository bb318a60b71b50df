// Random search and grid search over a SearchSpace.
#ifndef TUNER_SCHEDULERS_RANDOM_SEARCHER_H_
#define TUNER_SCHEDULERS_RANDOM_SEARCHER_H_

#include <cstdint>
#include <optional>
#include <set>
#include <vector>

#include "core/search_space.h"
#include "schedulers/candidate_set.h"
#include "schedulers/grid.h"
#include "schedulers/searcher.h"

namespace tuner::schedulers {

// Random search. Trial i takes grid combination i mod G (G = product of the
// sizes of the `grid` params, so the grid is covered evenly) and samples every
// other param from a stream seeded by (seed, i). Never exhausted.
// Restricted to candidates, trial i takes the i-th of a permutation the seed
// decides (the next untaken one where a restored trial took it): the
// candidates drawn uniformly without replacement.
class RandomSearcher : public Searcher {
 public:
  RandomSearcher(core::SearchSpace space, uint64_t seed);
  std::optional<core::Params> Suggest(int64_t index) override;
  void Observe(int64_t index, const core::Params& params, double time,
               double value) override;
  bool RestrictTo(std::vector<core::Params> candidates) override;

 private:
  std::optional<core::Params> SuggestCandidate(int64_t index);

  core::SearchSpace space_;
  uint64_t seed_;
  Grid grid_;
  std::optional<CandidateSet> candidates_;
  std::vector<size_t> order_;  // the seeded permutation of candidates_
  std::set<int64_t> known_;    // trial indices suggested or observed
};

// Grid search: the cross product of every `grid` and `choice` param, each
// combination once, in odometer order (the last param varies fastest).
// REQUIRES: every param of `space` is a grid or a choice.
class GridSearcher : public Searcher {
 public:
  explicit GridSearcher(core::SearchSpace space);
  std::optional<core::Params> Suggest(int64_t index) override;
  int64_t size() const { return grid_.size(); }

 private:
  core::SearchSpace space_;
  Grid grid_;
};

}  // namespace tuner::schedulers

#endif  // TUNER_SCHEDULERS_RANDOM_SEARCHER_H_
