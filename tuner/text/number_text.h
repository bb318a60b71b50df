// Measured values (a report's time or metric, a trial's last value) as the
// listings show them.
#ifndef TUNER_TUNER_TEXT_NUMBER_TEXT_H_
#define TUNER_TUNER_TEXT_NUMBER_TEXT_H_

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace tuner {

// For JSON and YAML, by core::JsonNumber's rule: null when absent, "inf",
// "-inf" or "nan" (a string, since JSON has no such number) when not finite,
// else the number.
nlohmann::ordered_json JsonNumber(const std::optional<double>& value);

// For a table cell: six significant digits, "-" when absent.
std::string NumberCell(const std::optional<double>& value);

// Whether `value` is present and not finite: its NumberCell shows nan, inf
// or -inf.
bool NonFinite(const std::optional<double>& value);

// The line under a table that showed such a cell, saying what it means.
inline constexpr const char* kNonFiniteFootnote =
    "nan, inf, -inf: the trial reported a non-finite value\n";

}  // namespace tuner

#endif  // TUNER_TUNER_TEXT_NUMBER_TEXT_H_
