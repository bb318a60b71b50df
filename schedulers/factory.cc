#include "schedulers/factory.h"

#include "schedulers/asha.h"
#include "schedulers/fifo.h"
#include "schedulers/gp_searcher.h"
#include "schedulers/hyperband.h"
#include "schedulers/median.h"
#include "schedulers/random_searcher.h"
#include "schedulers/sobol.h"
#include "schedulers/tpe.h"

namespace tuner::schedulers {

std::unique_ptr<Searcher> MakeSearcher(const core::SearcherSpec& spec,
                                       const core::SearchSpace& space,
                                       core::Mode mode) {
  switch (spec.type) {
    case core::SearcherType::kGrid:
      return std::make_unique<GridSearcher>(space);
    case core::SearcherType::kSobol:
      return std::make_unique<SobolSearcher>(space, spec.seed);
    case core::SearcherType::kTpe:
      return std::make_unique<TpeSearcher>(space, spec, mode);
    case core::SearcherType::kGp:
      return std::make_unique<GpSearcher>(space, spec, mode);
    case core::SearcherType::kRandom:
      break;
  }
  return std::make_unique<RandomSearcher>(space, spec.seed);
}

std::unique_ptr<TrialScheduler> MakeTrialScheduler(
    const core::SchedulerSpec& spec) {
  switch (spec.type) {
    case core::SchedulerType::kFifo:
      return std::make_unique<FifoScheduler>(spec);
    case core::SchedulerType::kHyperband:
      return std::make_unique<HyperbandScheduler>(spec);
    case core::SchedulerType::kMedian:
      return std::make_unique<MedianScheduler>(spec);
    case core::SchedulerType::kAsha:
      break;
  }
  return std::make_unique<AshaScheduler>(spec);
}

}  // namespace tuner::schedulers
