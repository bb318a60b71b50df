#include "schedulers/random_searcher.h"

#include <utility>

#include "schedulers/sampling.h"

namespace tuner::schedulers {

RandomSearcher::RandomSearcher(core::SearchSpace space, uint64_t seed)
    : space_(std::move(space)), seed_(seed), grid_(GridAxes(space_, false)) {}

std::optional<core::Params> RandomSearcher::Suggest(int64_t index) {
  core::Params params;
  grid_.AppendCombination(index, params);
  Rng rng = Rng::ForIndex(seed_, static_cast<uint64_t>(index));
  for (const auto& spec : space_.params) {
    if (spec.distribution != core::Distribution::kGrid) {
      params.emplace_back(spec.name, Sample(spec, rng));
    }
  }
  params = InDeclarationOrder(space_, std::move(params));
  DropInactive(space_, params);
  return params;
}

GridSearcher::GridSearcher(core::SearchSpace space)
    : space_(std::move(space)), grid_(GridAxes(space_, true)) {}

std::optional<core::Params> GridSearcher::Suggest(int64_t index) {
  if (index < 0 || index >= grid_.size()) return std::nullopt;
  core::Params params;
  grid_.AppendCombination(index, params);
  return params;
}

}  // namespace tuner::schedulers
