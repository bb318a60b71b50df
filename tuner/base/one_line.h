// The one sanitiser for text shown to people: every byte the tuner prints
// that came from a config, a database, a trial or a server goes through
// Printable (OneLine is its one-line form), so no escape sequence a name
// or a value holds ever reaches a terminal.
#ifndef TUNER_ONE_LINE_H_
#define TUNER_ONE_LINE_H_

#include <string>
#include <string_view>

namespace tuner {

// How Printable shows a control character it takes out.
enum class ControlShown {
  kEscaped,   // \xNN for C0 and DEL, \uNNNN for C1 and bidi: readable
  kReplaced,  // U+FFFD (CSV, where "\x1b" would read as data)
};

// Whether `text` holds a character a terminal acts on: C0 (below 0x20),
// DEL, a C1 control (U+0080..U+009F) or a bidirectional override or
// isolate (U+202A..U+202E, U+2066..U+2069).
bool HasControl(std::string_view text);

// `text` with each of those characters, except the C0 ones in `keep`,
// shown as `shown` says. Everything else passes as it is.
std::string Printable(std::string_view text, std::string_view keep = {},
                      ControlShown shown = ControlShown::kEscaped);

// Printable keeping nothing: an error or a stored reason prints as exactly
// one line, as it is.
std::string OneLine(std::string_view text);

}  // namespace tuner

#endif  // TUNER_ONE_LINE_H_
