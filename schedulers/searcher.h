// Searcher: where the parameters of the next trial come from.
#ifndef TUNER_SCHEDULERS_SEARCHER_H_
#define TUNER_SCHEDULERS_SEARCHER_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "core/param_value.h"

namespace tuner::schedulers {

// Suggests the parameters of the trial with a given index (0, 1, 2, ... in
// launch order). Model-free searchers are pure functions of their
// construction arguments and the index; model-based ones also of the
// observations they were given, in order. Either way a resumed sweep
// rebuilds a searcher by replaying the stored observations. Not thread-safe.
class Searcher {
 public:
  virtual ~Searcher() = default;
  Searcher() = default;
  Searcher(const Searcher&) = delete;
  Searcher& operator=(const Searcher&) = delete;

  // The params of trial `index`, or nullopt when the searcher has no more
  // configurations to offer (e.g. a grid that is exhausted).
  virtual std::optional<core::Params> Suggest(int64_t index) = 0;

  // Trial `index`, run with `params`, reached resource `time` (a rung
  // milestone, or where it ended) with objective `value`. A repeated
  // (index, time) replaces the earlier value. Ignored by model-free
  // searchers.
  virtual void Observe(int64_t index, const core::Params& params, double time,
                       double value) {
    (void)index, (void)params, (void)time, (void)value;
  }

  // Restricts every later suggestion to one of `candidates` (e.g. the
  // configurations of a table a simulation replays), each suggested at most
  // once: Suggest returns nullopt once all are taken, and a trial observed
  // with params it did not suggest (restored after a restart) takes the
  // first equal candidate. Returns false, changing nothing, where the
  // searcher cannot choose from a list.
  virtual bool RestrictTo(std::vector<core::Params> candidates) {
    (void)candidates;
    return false;
  }
};

}  // namespace tuner::schedulers

#endif  // TUNER_SCHEDULERS_SEARCHER_H_
