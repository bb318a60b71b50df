// The one sanitiser for text shown to people: every byte the tuner prints
// that came from a config, a database, a trial or a server goes through
// Printable (OneLine is its one-line form), so no escape sequence a name
// or a value holds ever reaches a terminal. Header-only, so the leaves (a
// failed trial's reason, in trial_runner) take it too.
#ifndef TUNER_CORE_PRINTABLE_H_
#define TUNER_CORE_PRINTABLE_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

namespace tuner::core {

// How Printable shows a control character it takes out.
enum class ControlShown {
  kEscaped,   // \xNN for C0 and DEL, \uNNNN for C1 and bidi: readable
  kReplaced,  // U+FFFD (CSV, where "\x1b" would read as data)
};

namespace printable_detail {

inline constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// The code point of a C1 control (U+0080..U+009F) or a bidirectional
// override, isolate or mark (U+202A..U+202E, U+2066..U+2069,
// U+200E, U+200F, U+061C) that starts at
// text[i], and its length in bytes; {0, 0} for anything else. Either can
// rewrite what a terminal shows.
inline std::pair<unsigned, size_t> Invisible(std::string_view text, size_t i) {
  auto at = [&](size_t k) {
    return k < text.size() ? static_cast<unsigned char>(text[k]) : 0u;
  };
  if (at(i) == 0xc2 && at(i + 1) >= 0x80 && at(i + 1) <= 0x9f)
    return {at(i + 1), 2};
  if (at(i) == 0xe2 && at(i + 1) == 0x80 &&
      ((at(i + 2) >= 0xaa && at(i + 2) <= 0xae) || at(i + 2) == 0x8e ||
       at(i + 2) == 0x8f))
    return {0x2000u + at(i + 2) - 0x80, 3};
  if (at(i) == 0xd8 && at(i + 1) == 0x9c) return {0x061cu, 2};
  if (at(i) == 0xe2 && at(i + 1) == 0x81 && at(i + 2) >= 0xa6 &&
      at(i + 2) <= 0xa9)
    return {0x2040u + at(i + 2) - 0x80, 3};
  return {0, 0};
}

inline bool IsC0OrDel(unsigned char c) { return c < 0x20 || c == 0x7f; }

// The length of the well-formed UTF-8 character (RFC 3629: no overlong
// form, no surrogate, nothing above U+10FFFF) that starts at text[i]; 0
// when the byte there starts none (a lone 0x9b is CSI to an 8-bit
// terminal).
inline size_t Utf8Length(std::string_view text, size_t i) {
  auto at = [&](size_t k) {
    return k < text.size() ? static_cast<unsigned char>(text[k]) : 0u;
  };
  auto tail = [&](size_t k) { return at(k) >= 0x80 && at(k) <= 0xbf; };
  unsigned c = at(i);
  if (c < 0x80) return 1;
  if (c >= 0xc2 && c <= 0xdf) return tail(i + 1) ? 2 : 0;
  if (c >= 0xe0 && c <= 0xef) {
    unsigned low = c == 0xe0 ? 0xa0 : 0x80, high = c == 0xed ? 0x9f : 0xbf;
    bool second = at(i + 1) >= low && at(i + 1) <= high;
    return second && tail(i + 2) ? 3 : 0;
  }
  if (c >= 0xf0 && c <= 0xf4) {
    unsigned low = c == 0xf0 ? 0x90 : 0x80, high = c == 0xf4 ? 0x8f : 0xbf;
    bool second = at(i + 1) >= low && at(i + 1) <= high;
    return second && tail(i + 2) && tail(i + 3) ? 4 : 0;
  }
  return 0;
}

// Appends `prefix` and `value` in `digits` lowercase hex digits.
inline void AppendHex(std::string& out, std::string_view prefix, unsigned value,
                      int digits) {
  constexpr std::string_view kHex = "0123456789abcdef";
  out += prefix;
  for (int shift = 4 * (digits - 1); shift >= 0; shift -= 4)
    out += kHex[(value >> shift) & 0xf];
}

}  // namespace printable_detail

// Whether `text` holds a character a terminal acts on: C0 (below 0x20),
// DEL, a C1 control (U+0080..U+009F) or a bidirectional override or
// isolate (U+202A..U+202E, U+2066..U+2069), or a byte that is not part of
// well-formed UTF-8.
inline bool HasControl(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    size_t bytes = printable_detail::Utf8Length(text, i);
    if (bytes == 0 ||
        printable_detail::IsC0OrDel(static_cast<unsigned char>(text[i])) ||
        printable_detail::Invisible(text, i).second > 0) {
      return true;
    }
    i += bytes;
  }
  return false;
}

// `text` with each of those characters, except the C0 ones in `keep`,
// shown as `shown` says (a byte outside well-formed UTF-8 as \xNN, or
// U+FFFD). Everything else passes as it is.
inline std::string Printable(std::string_view text, std::string_view keep = {},
                             ControlShown shown = ControlShown::kEscaped) {
  using printable_detail::AppendHex;
  std::string out;
  out.reserve(text.size());
  const bool escaped = shown == ControlShown::kEscaped;
  for (size_t i = 0; i < text.size(); ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    if (auto [code, length] = printable_detail::Invisible(text, i);
        length > 0) {
      if (escaped) {
        AppendHex(out, "\\u", code, 4);
      } else {
        out += printable_detail::kReplacement;
      }
      i += length - 1;
    } else if (size_t bytes = printable_detail::Utf8Length(text, i);
               c >= 0x80 && bytes > 0) {
      out.append(text.substr(i, bytes));
      i += bytes - 1;
    } else if (c >= 0x80) {
      if (escaped) {
        AppendHex(out, "\\x", c, 2);
      } else {
        out += printable_detail::kReplacement;
      }
    } else if (!printable_detail::IsC0OrDel(c) ||
               keep.find(text[i]) != std::string_view::npos) {
      out += static_cast<char>(c);
    } else if (escaped) {
      AppendHex(out, "\\x", c, 2);
    } else {
      out += printable_detail::kReplacement;
    }
  }
  return out;
}

// Printable keeping nothing: an error or a stored reason prints as exactly
// one line, as it is.
inline std::string OneLine(std::string_view text) { return Printable(text); }

// What a user typed (a name), quoted for an error: OneLine, and where it is
// longer than `limit` bytes, its first ones (cut where a character starts)
// with "..." and its size, so that no input makes an error a page long.
inline std::string QuotedInput(std::string_view text, size_t limit = 128) {
  if (text.size() <= limit) return "'" + OneLine(text) + "'";
  size_t cut = limit;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) {
    --cut;
  }
  return "'" + OneLine(text.substr(0, cut)) + "...' (" +
         std::to_string(text.size()) + " bytes)";
}

}  // namespace tuner::core

#endif  // TUNER_CORE_PRINTABLE_H_
