#include "storage/json_codec.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "core/param_value.h"

namespace tuner::storage {

std::string MetricsToJson(const core::Metrics& metrics) {
  nlohmann::ordered_json object = nlohmann::ordered_json::object();
  for (const auto& [name, value] : metrics) {
    if (std::isfinite(value)) {
      object[name] = value;
    } else {
      object[name] = core::FormatDouble(value);
    }
  }
  // Names are valid UTF-8 when they come from MetricStream; should one not
  // be, it is stored with U+FFFD rather than failing the report.
  return object.dump(-1, ' ', false,
                     nlohmann::ordered_json::error_handler_t::replace);
}

core::Metrics MetricsFromJson(const std::string& text) {
  core::Metrics metrics;
  auto object = nlohmann::ordered_json::parse(text, nullptr, false);
  if (!object.is_object()) return metrics;
  for (const auto& [name, value] : object.items()) {
    if (value.is_number()) {
      metrics.emplace_back(name, value.get<double>());
    } else if (value.is_string()) {
      metrics.emplace_back(
          name, std::strtod(value.get<std::string>().c_str(), nullptr));
    }
  }
  return metrics;
}

}  // namespace tuner::storage
