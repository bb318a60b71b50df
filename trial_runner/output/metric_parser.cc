#include "trial_runner/output/metric_parser.h"

#include <cctype>
#include <nlohmann/json.hpp>

#include "core/text.h"
#include "trial_runner/output/python_dict.h"
#include "util/utf8_text.h"

namespace tuner::runner {

namespace {

constexpr std::string_view kTuneMetricTag = "[tune-metric]:";

std::optional<core::Metrics> ParseJsonObject(std::string_view text) {
  auto object = nlohmann::ordered_json::parse(text, nullptr, false);
  if (!object.is_object()) return std::nullopt;
  core::Metrics metrics;
  for (const auto& [key, value] : object.items()) {
    if (value.is_number()) {
      metrics.emplace_back(key, value.get<double>());
    } else if (value.is_string()) {
      if (auto number = ParseNumber(value.get_ref<const std::string&>())) {
        metrics.emplace_back(key, *number);
      }
    }
  }
  return metrics;
}

}  // namespace

std::optional<core::Metrics> ParseMetricLine(std::string_view line) {
  if (line.size() > kMaxMetricLineBytes) return std::nullopt;
  std::string valid;
  if (!util::IsValidUtf8(line)) {
    valid = util::ValidUtf8(line);
    line = valid;
  }
  line = core::TrimSpace(line);
  if (line.substr(0, kTuneMetricTag.size()) == kTuneMetricTag) {
    line = core::TrimSpace(line.substr(kTuneMetricTag.size()));
  }
  if (line.size() < 2 || line.front() != '{' || line.back() != '}') {
    return std::nullopt;
  }
  // Strict JSON first; Python's repr (and JSON with NaN) second.
  if (auto metrics = ParseJsonObject(line)) return metrics;
  return ParsePythonDict(line);
}

}  // namespace tuner::runner
