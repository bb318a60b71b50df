#include "schedulers/factory.h"

#include "schedulers/asha.h"
#include "schedulers/fifo.h"
#include "schedulers/random_searcher.h"

namespace tuner::schedulers {

std::unique_ptr<Searcher> MakeSearcher(const core::SearcherSpec& spec,
                                       const core::SearchSpace& space) {
  if (spec.type == core::SearcherType::kGrid) {
    return std::make_unique<GridSearcher>(space);
  }
  return std::make_unique<RandomSearcher>(space, spec.seed);
}

std::unique_ptr<TrialScheduler> MakeTrialScheduler(
    const core::SchedulerSpec& spec) {
  if (spec.type == core::SchedulerType::kFifo) {
    return std::make_unique<FifoScheduler>(spec);
  }
  return std::make_unique<AshaScheduler>(spec);
}

}  // namespace tuner::schedulers
