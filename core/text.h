// Small text helpers every layer may use (header only).
#ifndef TUNER_CORE_TEXT_H_
#define TUNER_CORE_TEXT_H_

#include <cctype>
#include <cstddef>
#include <string_view>

namespace tuner::core {

// `text` without the white space (std::isspace, in the C locale) at either
// end.
inline std::string_view TrimSpace(std::string_view text) {
  auto space = [](char c) {
    return std::isspace(static_cast<unsigned char>(c));
  };
  while (!text.empty() && space(text.front())) text.remove_prefix(1);
  while (!text.empty() && space(text.back())) text.remove_suffix(1);
  return text;
}

namespace text_detail {

inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Skips the digits at the front of `text`; how many there were.
inline size_t SkipDigits(std::string_view& text) {
  size_t n = 0;
  while (n < text.size() && IsDigit(text[n])) ++n;
  text.remove_prefix(n);
  return n;
}

}  // namespace text_detail

// What IsDecimalInteger and IsDecimalNumber take, as an error states it
// ("expected " + rule + ", got ..."): the one wording of the number rule.
inline constexpr std::string_view kDecimalIntegerRule =
    "a decimal integer (no sign '+', no leading zero, no exponent)";
inline constexpr std::string_view kDecimalNumberRule =
    "a decimal number (no sign '+', no leading zero)";

// Whether `text` is an integer written in decimal: an optional '-', then
// digits without a leading zero ("0" itself aside). "010" (YAML 1.1's octal
// 8), "0x10", "+1" and " 1" are not.
inline bool IsDecimalInteger(std::string_view text) {
  if (text.starts_with('-')) text.remove_prefix(1);
  if (text.size() > 1 && text[0] == '0') return false;
  return !text.empty() && text_detail::SkipDigits(text) > 0 && text.empty();
}

// Whether `text` is a number written in decimal (YAML 1.2's float form
// without a '+'): an optional '-', digits without a leading zero ("0" and
// "0.5" aside) and/or a fraction ("5.", ".5"), then an optional exponent
// ("1e-3", "1e+30"). "+5", "010", "0x10", "0o10", "0b10", "1_000", "inf",
// "nan" and " 1" are not.
inline bool IsDecimalNumber(std::string_view text) {
  using text_detail::SkipDigits;
  if (text.starts_with('-')) text.remove_prefix(1);
  if (text.size() > 1 && text[0] == '0' && text_detail::IsDigit(text[1]))
    return false;
  size_t digits = SkipDigits(text);
  if (text.starts_with('.')) {
    text.remove_prefix(1);
    digits += SkipDigits(text);
  }
  if (digits == 0) return false;
  if (text.starts_with('e') || text.starts_with('E')) {
    text.remove_prefix(1);
    if (text.starts_with('-') || text.starts_with('+')) text.remove_prefix(1);
    if (SkipDigits(text) == 0) return false;
  }
  return text.empty();
}

}  // namespace tuner::core

#endif  // TUNER_CORE_TEXT_H_
