// Scrambled Sobol' points and the `sobol` searcher.
#ifndef TUNER_SCHEDULERS_SOBOL_H_
#define TUNER_SCHEDULERS_SOBOL_H_

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/search_space.h"
#include "schedulers/grid.h"
#include "schedulers/searcher.h"

namespace tuner::schedulers {

// Sobol' points (Joe & Kuo direction numbers) with hash-based Owen
// scrambling (Burley 2020), seeded per dimension. Point i is computed
// directly from i, so any point costs O(32). The first kMaxDims dimensions
// are Sobol'; further ones are seeded pseudo-random.
class SobolSequence {
 public:
  static constexpr int kMaxDims = 21;
  explicit SobolSequence(uint64_t seed);
  // Coordinate `dim` of point `index`, in [0, 1).
  double At(uint64_t index, int dim) const;

 private:
  std::vector<std::array<uint32_t, 32>> directions_;
  std::vector<uint32_t> scramble_seeds_;
  uint64_t seed_;
};

// Quasi-random search: trial i takes grid combination i mod G (as random
// search does) and maps Sobol' point i through each other param's
// distribution, one dimension per param in declaration order. Conditional
// params keep their dimension when inactive, so dimensions never shift.
class SobolSearcher : public Searcher {
 public:
  SobolSearcher(core::SearchSpace space, uint64_t seed);
  std::optional<core::Params> Suggest(int64_t index) override;

 private:
  core::SearchSpace space_;
  SobolSequence sequence_;
  Grid grid_;
};

}  // namespace tuner::schedulers

#endif  // TUNER_SCHEDULERS_SOBOL_H_
