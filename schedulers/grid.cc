#include "schedulers/grid.h"

#include <limits>
#include <utility>

namespace tuner::schedulers {

std::vector<const core::ParamSpec*> GridAxes(const core::SearchSpace& space,
                                             bool include_choices) {
  std::vector<const core::ParamSpec*> axes;
  for (const auto& spec : space.params) {
    if (spec.distribution == core::Distribution::kGrid ||
        (include_choices && spec.distribution == core::Distribution::kChoice)) {
      axes.push_back(&spec);
    }
  }
  return axes;
}

Grid::Grid(std::vector<const core::ParamSpec*> axes) : axes_(std::move(axes)) {
  for (const auto* axis : axes_) {
    // Saturates (64 two-value axes have 2^64 combinations): every index
    // below the saturated size still maps to a distinct combination.
    auto count = static_cast<int64_t>(axis->values.size());
    if (__builtin_mul_overflow(size_, count, &size_)) {
      size_ = std::numeric_limits<int64_t>::max();
    }
  }
}

void Grid::AppendCombination(int64_t index, core::Params& params) const {
  if (size_ == 0) return;
  std::vector<const core::ParamValue*> picked(axes_.size());
  int64_t rest = index % size_;
  for (size_t i = axes_.size(); i-- > 0;) {
    auto count = static_cast<int64_t>(axes_[i]->values.size());
    picked[i] = &axes_[i]->values[rest % count];
    rest /= count;
  }
  for (size_t i = 0; i < axes_.size(); ++i) {
    params.emplace_back(axes_[i]->name, *picked[i]);
  }
}

}  // namespace tuner::schedulers
