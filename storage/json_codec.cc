#include "storage/json_codec.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>

#include "core/param_value.h"

namespace tuner::storage {

namespace {

// Whether `name` is a JSON string's contents as it is: printable ASCII
// other than the quote and the backslash (what metric names almost always
// are).
bool IsPlainName(const std::string& name) {
  return std::all_of(name.begin(), name.end(), [](char c) {
    return c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
  });
}

// Whether two metrics have the same name.
bool HasDuplicateName(const core::Metrics& metrics) {
  for (size_t i = 0; i < metrics.size(); ++i) {
    for (size_t j = i + 1; j < metrics.size(); ++j) {
      if (metrics[i].first == metrics[j].first) return true;
    }
  }
  return false;
}

// A JSON object of the metrics: a name once, where it first appears, with
// its last value.
std::string ObjectOf(const core::Metrics& metrics) {
  nlohmann::ordered_json object = nlohmann::ordered_json::object();
  for (const auto& [name, value] : metrics) {
    if (std::isfinite(value)) {
      object[name] = value;
    } else {
      object[name] = core::FormatDouble(value);
    }
  }
  return object.dump(-1, ' ', false,
                     nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace

std::string MetricsToJson(const core::Metrics& metrics) {
  if (HasDuplicateName(metrics)) return ObjectOf(metrics);
  // Otherwise written piece by piece: a report is stored at every metric
  // line, and building a JSON object to dump it was a tenth of a sweep's
  // bookkeeping.
  std::string out;
  out.reserve(2 + 40 * metrics.size());  // a name and a double, most often
  out += '{';
  char number[32];
  for (const auto& [name, value] : metrics) {
    if (out.size() > 1) out += ',';
    if (IsPlainName(name)) {
      out += '"';
      out += name;
      out += '"';
    } else {
      // Names are valid UTF-8 when they come from MetricStream; should one
      // not be, it is stored with U+FFFD rather than failing the report.
      out += nlohmann::json(name).dump(
          -1, ' ', false, nlohmann::json::error_handler_t::replace);
    }
    out += ':';
    auto [end, ec] =
        std::isfinite(value)
            ? std::to_chars(number, number + sizeof(number), value)
            : std::to_chars_result{number, std::errc::invalid_argument};
    if (ec == std::errc()) {
      out.append(number, end);
      // A real, as nlohmann writes it: "3.0", and "-0.0" keeps its sign.
      if (std::find_if(number, end,
                       [](char c) { return c == '.' || c == 'e'; }) == end) {
        out += ".0";
      }
    } else {
      out += '"' + core::FormatDouble(value) + '"';
    }
  }
  out += '}';
  return out;
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
