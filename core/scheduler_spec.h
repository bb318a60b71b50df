// Settings of the searcher and the trial scheduler, as the config states them.
#ifndef TUNER_CORE_SCHEDULER_SPEC_H_
#define TUNER_CORE_SCHEDULER_SPEC_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/trial.h"

namespace tuner::core {

enum class SearcherType { kRandom, kGrid, kSobol, kTpe, kGp };

struct SearcherSpec {
  SearcherType type = SearcherType::kRandom;
  uint64_t seed = 0;
  // tpe, gp: configs drawn at random before the model is used, and the
  // number of observations a rung needs before the model fits on it.
  int n_startup = 10;
  // tpe, gp: candidates scored per suggestion; 0: the searcher's default
  // (tpe 24, gp 1024).
  int n_candidates = 0;
  double gamma = 0.15;   // tpe: the share of observations deemed good
  int max_points = 256;  // gp: observations the model sees at most
  bool joint = false;    // gp: one model over config and resource
};

enum class SchedulerType { kAsha, kHyperband, kMedian, kFifo };

struct SchedulerSpec {
  SchedulerType type = SchedulerType::kAsha;
  std::optional<double> max_t;  // required by asha and hyperband
  double grace_period = 1;
  double reduction_factor = 3;
  int brackets = 0;  // HyperBand brackets; 0: asha 1, hyperband all levels
  bool promotion = false;  // asha: pause at rungs and promote (`mode`)
  // asha promotion, one bracket: PASHA, the highest rung a trial is promoted
  // to grows only while the top two rungs rank differently.
  bool pasha = false;
  int min_samples = 5;     // median: values a step needs before it judges
  Mode mode = Mode::kMax;  // copied from the experiment's `mode`
  uint64_t seed = 0;       // copied from the searcher's seed
};

inline std::string_view ToString(SearcherType type) {
  switch (type) {
    case SearcherType::kRandom:
      return "random";
    case SearcherType::kGrid:
      return "grid";
    case SearcherType::kSobol:
      return "sobol";
    case SearcherType::kTpe:
      return "tpe";
    case SearcherType::kGp:
      return "gp";
  }
  return "unknown";
}

inline std::string_view ToString(SchedulerType type) {
  switch (type) {
    case SchedulerType::kAsha:
      return "asha";
    case SchedulerType::kHyperband:
      return "hyperband";
    case SchedulerType::kMedian:
      return "median";
    case SchedulerType::kFifo:
      return "fifo";
  }
  return "unknown";
}

}  // namespace tuner::core

#endif  // TUNER_CORE_SCHEDULER_SPEC_H_
