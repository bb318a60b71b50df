// Text from outside the tuner (a trial's output, a checkpoint's state, a
// config file) made valid UTF-8 where it enters, so that no JSON encoding
// of it can fail further on.
#ifndef TUNER_UTIL_UTF8_TEXT_H_
#define TUNER_UTIL_UTF8_TEXT_H_

#include <string>
#include <string_view>

namespace tuner::util {

// The UTF-8 encoding of U+FFFD, which replaces what is not UTF-8.
inline constexpr std::string_view kReplacementChar = "\xEF\xBF\xBD";

// Whether `text` is well-formed UTF-8 (no stray, truncated or overlong
// sequence, no surrogate, nothing past U+10FFFF). Pure.
bool IsValidUtf8(std::string_view text);

// `text` with every ill-formed sequence replaced by one U+FFFD (utfcpp's
// replace_invalid); valid text comes back unchanged. Pure; never throws.
std::string ValidUtf8(std::string_view text);

}  // namespace tuner::util

#endif  // TUNER_UTIL_UTF8_TEXT_H_
