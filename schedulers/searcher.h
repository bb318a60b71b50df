// Searcher: where the parameters of the next trial come from.
#ifndef TUNER_SCHEDULERS_SEARCHER_H_
#define TUNER_SCHEDULERS_SEARCHER_H_

#include <cstdint>
#include <optional>

#include "tuner/core/param_value.h"

namespace tuner::schedulers {

// Suggests the parameters of the trial with a given index (0, 1, 2, ... in
// launch order). Implementations are pure functions of their construction
// arguments and the index: the same seed and index always give the same
// params, so a resumed sweep needs no searcher state. Not thread-safe.
class Searcher {
 public:
  virtual ~Searcher() = default;
  Searcher() = default;
  Searcher(const Searcher&) = delete;
  Searcher& operator=(const Searcher&) = delete;

  // The params of trial `index`, or nullopt when the searcher has no more
  // configurations to offer (e.g. a grid that is exhausted).
  virtual std::optional<core::Params> Suggest(int64_t index) = 0;
};

}  // namespace tuner::schedulers

#endif  // TUNER_SCHEDULERS_SEARCHER_H_
