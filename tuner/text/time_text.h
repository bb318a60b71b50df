// Times and durations as people read them in tables.
#ifndef TUNER_TUNER_TEXT_TIME_TEXT_H_
#define TUNER_TUNER_TEXT_TIME_TEXT_H_

#include <optional>
#include <string>

namespace tuner {

// Unix seconds as "2026-11-27 08:10:20" (UTC, whole seconds); "-" when
// absent or not finite.
std::string FormatUtc(std::optional<double> seconds);

// Seconds as "42s", "12m05s", "3h02m05s" or "2d03h04m" (whole seconds,
// rounded down); "-" when absent, negative or not finite.
std::string FormatDuration(std::optional<double> seconds);

}  // namespace tuner

#endif  // TUNER_TUNER_TEXT_TIME_TEXT_H_
