#include "util/utf8_text.h"

#include <utf8.h>

namespace tuner::util {

bool IsValidUtf8(std::string_view text) {
  return utf8::is_valid(text.begin(), text.end());
}

std::string ValidUtf8(std::string_view text) {
  if (IsValidUtf8(text)) return std::string(text);
  std::string out;
  out.reserve(text.size() + 8);
  utf8::replace_invalid(text.begin(), text.end(), std::back_inserter(out));
  return out;
}

}  // namespace tuner::util
