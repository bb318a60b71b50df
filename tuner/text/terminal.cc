#include "tuner/text/terminal.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace tuner {

namespace {

bool IsContinuationByte(char c) {
  return (static_cast<unsigned char>(c) & 0xc0) == 0x80;
}

// The columns of the code point starting at text[i], and its byte length.
std::pair<int, size_t> CodePointAt(std::string_view text, size_t i) {
  if (static_cast<unsigned char>(text[i]) < 0x80) return {1, 1};
  size_t length = 1;
  while (i + length < text.size() && IsContinuationByte(text[i + length]))
    ++length;
  return {2, length};
}

constexpr std::string_view kEllipsis = "...";

}  // namespace

bool EscapesAllowed(const char* no_color, const char* term) {
  if (no_color != nullptr && no_color[0] != '\0') return false;
  return term == nullptr || std::strcmp(term, "dumb") != 0;
}

bool EscapesAllowedHere() {
  return EscapesAllowed(std::getenv("NO_COLOR"), std::getenv("TERM"));
}

int TerminalColumns(int fd) {
  winsize size{};
  if (ioctl(fd, TIOCGWINSZ, &size) != 0) return 0;
  return size.ws_col;
}

int DisplayColumns(std::string_view text) {
  int columns = 0;
  for (size_t i = 0; i < text.size();) {
    auto [width, length] = CodePointAt(text, i);
    columns += width;
    i += length;
  }
  return columns;
}

std::string FitColumns(std::string_view text, int columns) {
  if (columns <= 0 || DisplayColumns(text) <= columns) return std::string(text);
  int room = columns - static_cast<int>(kEllipsis.size());
  if (room < 0) return std::string(kEllipsis.substr(0, columns));
  size_t end = 0;
  for (int used = 0; end < text.size();) {
    auto [width, length] = CodePointAt(text, end);
    if (used + width > room) break;
    used += width;
    end += length;
  }
  return std::string(text.substr(0, end)) + std::string(kEllipsis);
}

ProgressStyle ChooseProgressStyle(bool quiet, bool is_terminal,
                                  bool escapes_allowed) {
  if (quiet) return ProgressStyle::kQuiet;
  if (is_terminal && escapes_allowed) return ProgressStyle::kTable;
  return ProgressStyle::kLines;
}

}  // namespace tuner
