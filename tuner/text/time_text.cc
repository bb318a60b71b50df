#include "tuner/text/time_text.h"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <ctime>

namespace tuner {

std::string FormatUtc(std::optional<double> seconds) {
  // Past year 9999 the format would not be 19 characters.
  if (!seconds || !std::isfinite(*seconds) || *seconds < -62135596800.0 ||
      *seconds > 253402300799.0) {
    return "-";
  }
  auto t = static_cast<std::time_t>(std::floor(*seconds));
  return fmt::format("{:%Y-%m-%d %H:%M:%S}", fmt::gmtime(t));
}

std::string FormatDuration(std::optional<double> seconds) {
  if (!seconds || !std::isfinite(*seconds) || *seconds < 0 || *seconds > 9e15)
    return "-";
  auto s = static_cast<int64_t>(*seconds);
  int64_t days = s / 86400, hours = s / 3600 % 24, minutes = s / 60 % 60;
  if (days > 0) return fmt::format("{}d{:02}h{:02}m", days, hours, minutes);
  if (hours > 0) return fmt::format("{}h{:02}m{:02}s", hours, minutes, s % 60);
  if (minutes > 0) return fmt::format("{}m{:02}s", minutes, s % 60);
  return fmt::format("{}s", s);
}

}  // namespace tuner
