// Parameter values: what a searcher suggests and a command line receives.
#ifndef TUNER_CORE_PARAM_VALUE_H_
#define TUNER_CORE_PARAM_VALUE_H_

#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace tuner::core {

using ParamValue = std::variant<bool, int64_t, double, std::string>;

// Parameters of one trial, in the order the search space declares them.
using Params = std::vector<std::pair<std::string, ParamValue>>;

// The shortest decimal text that reads back as exactly `value` ("0.001",
// "1e-05", "3"); "nan", "inf", "-inf" for non-finite values.
inline std::string FormatDouble(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buffer[32];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return ec == std::errc() ? std::string(buffer, end) : std::to_string(value);
}

// The text a command line receives for `value`: booleans as true/false,
// numbers in shortest round-trip form, strings verbatim.
inline std::string FormatParamValue(const ParamValue& value) {
  struct Visitor {
    std::string operator()(bool v) const { return v ? "true" : "false"; }
    std::string operator()(int64_t v) const { return std::to_string(v); }
    std::string operator()(double v) const { return FormatDouble(v); }
    std::string operator()(const std::string& v) const { return v; }
  };
  return std::visit(Visitor{}, value);
}

// The value of a numeric parameter as a double; nullopt-like NaN otherwise.
inline double ParamAsDouble(const ParamValue& value) {
  if (auto* i = std::get_if<int64_t>(&value)) return static_cast<double>(*i);
  if (auto* d = std::get_if<double>(&value)) return *d;
  if (auto* b = std::get_if<bool>(&value)) return *b ? 1.0 : 0.0;
  return std::nan("");
}

}  // namespace tuner::core

#endif  // TUNER_CORE_PARAM_VALUE_H_
