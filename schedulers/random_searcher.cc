#include "schedulers/random_searcher.h"

#include <numeric>
#include <utility>

#include "schedulers/sampling.h"

namespace tuner::schedulers {

RandomSearcher::RandomSearcher(core::SearchSpace space, uint64_t seed)
    : space_(std::move(space)), seed_(seed), grid_(GridAxes(space_, false)) {}

std::optional<core::Params> RandomSearcher::Suggest(int64_t index) {
  if (candidates_) return SuggestCandidate(index);
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

bool RandomSearcher::RestrictTo(std::vector<core::Params> candidates) {
  candidates_.emplace(std::move(candidates));
  order_.resize(candidates_->size());
  std::iota(order_.begin(), order_.end(), size_t{0});
  Rng rng(seed_ ^ 0x5eedca7dull);
  for (size_t i = order_.size(); i > 1; --i) {  // Fisher-Yates
    auto j = static_cast<size_t>(rng.NextUnit() * static_cast<double>(i));
    std::swap(order_[i - 1], order_[j]);
  }
  return true;
}

std::optional<core::Params> RandomSearcher::SuggestCandidate(int64_t index) {
  known_.insert(index);
  if (candidates_->remaining() == 0 || index < 0) return std::nullopt;
  auto n = static_cast<int64_t>(order_.size());
  for (int64_t k = 0; k < n; ++k) {
    size_t i = order_[static_cast<size_t>((index + k) % n)];
    if (!candidates_->taken(i)) return candidates_->Take(i);
  }
  return std::nullopt;
}

void RandomSearcher::Observe(int64_t index, const core::Params& params,
                             double time, double value) {
  (void)time, (void)value;
  if (!candidates_ || !known_.insert(index).second) return;
  candidates_->TakeEqual(params);
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
