// Small text helpers every layer may use (header only).
#ifndef TUNER_CORE_TEXT_H_
#define TUNER_CORE_TEXT_H_

#include <cctype>
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

}  // namespace tuner::core

#endif  // TUNER_CORE_TEXT_H_
