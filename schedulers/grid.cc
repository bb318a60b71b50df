#include "schedulers/grid.h"

#include <utility>

namespace tuner::schedulers {

Grid::Grid(std::vector<const core::ParamSpec*> axes) : axes_(std::move(axes)) {
  for (const auto* axis : axes_) {
    size_ *= static_cast<int64_t>(axis->values.size());
  }
}

void Grid::AppendCombination(int64_t index, core::Params& params) const {
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
