#include "tuner/base/one_line.h"

#include <fmt/format.h>

#include <utility>

namespace tuner {

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// The code point of a C1 control (U+0080..U+009F) or a bidirectional
// override or isolate (U+202A..U+202E, U+2066..U+2069) that starts at
// text[i], and its length in bytes; {0, 0} for anything else. Either can
// rewrite what a terminal shows.
std::pair<unsigned, size_t> Invisible(std::string_view text, size_t i) {
  auto at = [&](size_t k) {
    return k < text.size() ? static_cast<unsigned char>(text[k]) : 0u;
  };
  if (at(i) == 0xc2 && at(i + 1) >= 0x80 && at(i + 1) <= 0x9f)
    return {at(i + 1), 2};
  if (at(i) == 0xe2 && at(i + 1) == 0x80 && at(i + 2) >= 0xaa &&
      at(i + 2) <= 0xae)
    return {0x2000u + at(i + 2) - 0x80, 3};
  if (at(i) == 0xe2 && at(i + 1) == 0x81 && at(i + 2) >= 0xa6 &&
      at(i + 2) <= 0xa9)
    return {0x2040u + at(i + 2) - 0x80, 3};
  return {0, 0};
}

bool IsC0OrDel(unsigned char c) { return c < 0x20 || c == 0x7f; }

}  // namespace

bool HasControl(std::string_view text) {
  for (size_t i = 0; i < text.size(); ++i) {
    if (IsC0OrDel(static_cast<unsigned char>(text[i])) ||
        Invisible(text, i).second > 0) {
      return true;
    }
  }
  return false;
}

std::string Printable(std::string_view text, std::string_view keep,
                      ControlShown shown) {
  std::string out;
  out.reserve(text.size());
  const bool escaped = shown == ControlShown::kEscaped;
  for (size_t i = 0; i < text.size(); ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    if (auto [code, length] = Invisible(text, i); length > 0) {
      out += escaped ? fmt::format("\\u{:04x}", code) : kReplacement;
      i += length - 1;
    } else if (!IsC0OrDel(c) || keep.find(text[i]) != std::string_view::npos) {
      out += static_cast<char>(c);
    } else {
      out += escaped ? fmt::format("\\x{:02x}", c) : kReplacement;
    }
  }
  return out;
}

std::string OneLine(std::string_view text) { return Printable(text); }

}  // namespace tuner
