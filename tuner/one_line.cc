#include "tuner/one_line.h"

#include <fmt/format.h>

namespace tuner {

std::string OneLine(std::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    if (c >= 0x20 && c != 0x7f) {
      out += static_cast<char>(c);
    } else {
      out += fmt::format("\\x{:02x}", c);
    }
  }
  return out;
}

}  // namespace tuner
