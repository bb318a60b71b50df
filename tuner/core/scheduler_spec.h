// Settings of the searcher and the trial scheduler, as the config states them.
#ifndef TUNER_CORE_SCHEDULER_SPEC_H_
#define TUNER_CORE_SCHEDULER_SPEC_H_

#include <cstdint>
#include <optional>
#include <string>

#include "tuner/core/trial.h"

namespace tuner::core {

enum class SearcherType { kRandom, kGrid };

struct SearcherSpec {
  SearcherType type = SearcherType::kRandom;
  uint64_t seed = 0;
};

enum class SchedulerType { kAsha, kFifo };

struct SchedulerSpec {
  SchedulerType type = SchedulerType::kAsha;
  std::optional<double> max_t;  // required by asha; optional for fifo
  double grace_period = 1;
  double reduction_factor = 3;
  Mode mode = Mode::kMax;  // copied from the experiment's `mode`
};

}  // namespace tuner::core

#endif  // TUNER_CORE_SCHEDULER_SPEC_H_
