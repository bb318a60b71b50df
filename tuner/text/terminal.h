// What a terminal allows: whether escapes may be written, how wide it is,
// and which progress display suits it.
#ifndef TUNER_TUNER_TEXT_TERMINAL_H_
#define TUNER_TUNER_TEXT_TERMINAL_H_

#include <string>
#include <string_view>

namespace tuner {

// Whether ANSI escapes (colour, bold, cursor movement) may be written. Not
// when NO_COLOR is set to a non-empty value (no-color.org) or TERM is
// "dumb". The arguments are getenv's: null when unset.
bool EscapesAllowed(const char* no_color, const char* term);
// The same, from this process's environment.
bool EscapesAllowedHere();

// The columns of the terminal on `fd` (ioctl TIOCGWINSZ); 0 when `fd` is no
// terminal or the terminal does not say.
int TerminalColumns(int fd);

// The columns `text` takes at most on a terminal: one per ASCII character,
// two per other code point (wide CJK takes two; counting every one as wide
// can only make a line shorter than the terminal, never wrap it).
int DisplayColumns(std::string_view text);

// `text` cut so that it takes at most `columns` columns, ending with "..."
// when cut; unchanged when `columns` <= 0 (width unknown). Never splits a
// UTF-8 sequence.
std::string FitColumns(std::string_view text, int columns);

enum class ProgressStyle {
  kTable,  // a live table redrawn in place (a terminal that takes escapes)
  kLines,  // one line per event (a pipe, a log, NO_COLOR, TERM=dumb)
  kQuiet,  // only the final summary (--quiet)
};

// The progress display of `tuner run`/`resume`: `quiet` wins; the table
// needs a terminal that takes escapes.
ProgressStyle ChooseProgressStyle(bool quiet, bool is_terminal,
                                  bool escapes_allowed);

}  // namespace tuner

#endif  // TUNER_TUNER_TEXT_TERMINAL_H_
