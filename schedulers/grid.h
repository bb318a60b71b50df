// Enumerating cross products of finite parameter value lists.
#ifndef TUNER_SCHEDULERS_GRID_H_
#define TUNER_SCHEDULERS_GRID_H_

#include <cstdint>
#include <vector>

#include "core/param_value.h"
#include "core/search_space.h"

namespace tuner::schedulers {

// The params of `space` that a grid enumerates: every kGrid param, and every
// kChoice param too when `include_choices` (grid search), in declaration order.
std::vector<const core::ParamSpec*> GridAxes(const core::SearchSpace& space,
                                             bool include_choices);

// The cross product of the `values` of some params, in odometer order: the
// last param varies fastest.
class Grid {
 public:
  explicit Grid(std::vector<const core::ParamSpec*> axes);

  // Number of combinations (1 for a grid with no axes), saturated at
  // INT64_MAX; 0 if an axis has no values.
  int64_t size() const { return size_; }
  // Appends combination `index % size()` to `params`; nothing if size() is 0.
  // REQUIRES: index >= 0.
  void AppendCombination(int64_t index, core::Params& params) const;

 private:
  std::vector<const core::ParamSpec*> axes_;
  int64_t size_ = 1;
};

}  // namespace tuner::schedulers

#endif  // TUNER_SCHEDULERS_GRID_H_
