#include "tuner/text/number_text.h"

#include <fmt/format.h>

#include <cmath>

#include "core/param_value.h"

namespace tuner {

nlohmann::ordered_json JsonNumber(const std::optional<double>& value) {
  if (!value) return nullptr;
  if (!std::isfinite(*value)) return core::FormatDouble(*value);
  return *value;
}

std::string NumberCell(const std::optional<double>& value) {
  return value ? fmt::format("{:.6g}", *value) : "-";
}

bool NonFinite(const std::optional<double>& value) {
  return value && !std::isfinite(*value);
}

}  // namespace tuner
