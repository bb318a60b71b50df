// The search space of an experiment: one ParamSpec per parameter.
#ifndef TUNER_CORE_SEARCH_SPACE_H_
#define TUNER_CORE_SEARCH_SPACE_H_

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/param_value.h"

namespace tuner::core {

enum class Distribution {
  kUniform,     // real in [low, high)
  kLogUniform,  // real in [low, high), uniform in log space; low > 0
  kQUniform,    // uniform, rounded to a multiple of q, clamped to [low, high]
  kRandInt,     // integer in [low, high], both inclusive
  kLogRandInt,  // integer in [low, high], uniform in log space; low >= 1
  kChoice,      // one of `values`, sampled
  kGrid,        // every one of `values`: the cross product of grid params
};

// The config's name of each distribution (`type: loguniform`).
inline constexpr std::pair<std::string_view, Distribution>
    kDistributionNames[] = {{"uniform", Distribution::kUniform},
                            {"loguniform", Distribution::kLogUniform},
                            {"quniform", Distribution::kQUniform},
                            {"randint", Distribution::kRandInt},
                            {"lograndint", Distribution::kLogRandInt},
                            {"choice", Distribution::kChoice},
                            {"grid", Distribution::kGrid}};

inline std::string_view ToString(Distribution d) {
  for (const auto& [name, value] : kDistributionNames) {
    if (value == d) return name;
  }
  return "unknown";
}

// A conditional parameter is sampled only when an earlier parameter took
// one of `values` (config: `when: {optimizer: sgd}`).
struct Condition {
  std::string param;
  std::vector<ParamValue> values;
};

struct ParamSpec {
  std::string name;
  Distribution distribution = Distribution::kUniform;
  double low = 0;
  double high = 0;
  double q = 0;                    // kQUniform only
  std::vector<ParamValue> values;  // kChoice and kGrid only
  std::optional<Condition> when;   // absent: always sampled
};

struct SearchSpace {
  std::vector<ParamSpec> params;  // declaration order
};

}  // namespace tuner::core

#endif  // TUNER_CORE_SEARCH_SPACE_H_
