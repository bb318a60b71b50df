#include "tuner/text/number_text.h"

#include <fmt/format.h>

#include <cmath>

#include "core/json_number.h"

namespace tuner {

nlohmann::ordered_json JsonNumber(const std::optional<double>& value) {
  return core::JsonNumber<nlohmann::ordered_json>(value);
}

std::string NumberCell(const std::optional<double>& value) {
  return value ? fmt::format("{:.6g}", *value) : "-";
}

bool NonFinite(const std::optional<double>& value) {
  return value && !std::isfinite(*value);
}

}  // namespace tuner
