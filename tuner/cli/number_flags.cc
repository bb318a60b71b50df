#include "tuner/cli/number_flags.h"

#include <charconv>
#include <string>
#include <string_view>

#include "core/param_value.h"
#include "core/text.h"

namespace tuner::cli {

namespace {

// The typed text as an error quotes it: a 309-digit number is cut.
std::string Quoted(const std::string& text) {
  constexpr size_t kShown = 24;
  return text.size() <= kShown ? text : text.substr(0, kShown) + "...";
}

// Reads all of `text`; false past the type's range.
template <typename T>
bool ReadAll(std::string_view text, T& value) {
  const char* end = text.data() + text.size();
  auto [stop, error] = std::from_chars(text.data(), end, value);
  return error == std::errc() && stop == end;
}

}  // namespace

CLI::Validator NumberIn(double low, double high) {
  std::string range =
      core::FormatDouble(low) + " to " + core::FormatDouble(high);
  return CLI::Validator(
      [low, high, range](std::string& text) -> std::string {
        double value = 0;
        if (core::IsDecimalNumber(text) && ReadAll(text, value) &&
            value >= low && value <= high) {
          return "";
        }
        return "expected a number from " + range + ", got " + Quoted(text);
      },
      "NUMBER in " + range);
}

CLI::Validator IntegerIn(int64_t low, int64_t high) {
  std::string range = std::to_string(low) + " to " + std::to_string(high);
  return CLI::Validator(
      [low, high, range](std::string& text) -> std::string {
        int64_t value = 0;
        if (core::IsDecimalInteger(text) && ReadAll(text, value) &&
            value >= low && value <= high) {
          return "";
        }
        return "expected an integer from " + range + ", got " + Quoted(text);
      },
      "INT in " + range);
}

}  // namespace tuner::cli
