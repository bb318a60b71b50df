// Metrics: the numeric key/value pairs of one report line.
#ifndef TUNER_CORE_METRICS_H_
#define TUNER_CORE_METRICS_H_

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tuner::core {

// In the order the line gave them; values may be NaN or infinite.
using Metrics = std::vector<std::pair<std::string, double>>;

inline std::optional<double> FindMetric(const Metrics& metrics,
                                        std::string_view key) {
  for (const auto& [name, value] : metrics) {
    if (name == key) return value;
  }
  return std::nullopt;
}

// Sets `key` to `value` in `metrics`: in place where it has the key, else
// appended.
inline void SetMetric(Metrics& metrics, std::string_view key, double value) {
  for (auto& [name, old] : metrics) {
    if (name == key) {
      old = value;
      return;
    }
  }
  metrics.emplace_back(std::string(key), value);
}

// Merges `later` into `metrics`: a key of both takes `later`'s value.
inline void MergeMetrics(Metrics& metrics, const Metrics& later) {
  for (const auto& [name, value] : later) SetMetric(metrics, name, value);
}

}  // namespace tuner::core

#endif  // TUNER_CORE_METRICS_H_
