// Builds the searcher and the trial scheduler an experiment asks for.
#ifndef TUNER_SCHEDULERS_FACTORY_H_
#define TUNER_SCHEDULERS_FACTORY_H_

#include <memory>

#include "core/scheduler_spec.h"
#include "core/search_space.h"
#include "schedulers/searcher.h"
#include "schedulers/trial_scheduler.h"

namespace tuner::schedulers {

// REQUIRES: `spec` was validated (see tuner/config_loader.h).
std::unique_ptr<Searcher> MakeSearcher(const core::SearcherSpec& spec,
                                       const core::SearchSpace& space,
                                       core::Mode mode);
std::unique_ptr<TrialScheduler> MakeTrialScheduler(
    const core::SchedulerSpec& spec);

}  // namespace tuner::schedulers

#endif  // TUNER_SCHEDULERS_FACTORY_H_
