#include "trial_runner/output/rank_prefix.h"

#include <cctype>

namespace tuner::runner {

namespace {

// Launchers' prefixes are short; anything longer is text.
constexpr size_t kMaxPrefix = 48;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// One `[<name><digits>]:` at the start of `line`: its name and number and
// its length, or nullopt.
struct Prefix {
  std::string_view name;
  int number = 0;
  size_t size = 0;
};

std::optional<Prefix> LeadingPrefix(std::string_view line) {
  if (line.empty() || line.front() != '[') return std::nullopt;
  size_t close = line.substr(0, kMaxPrefix).find("]:");
  if (close == std::string_view::npos) return std::nullopt;
  std::string_view inside = line.substr(1, close - 1);
  size_t digits = inside.size();
  while (digits > 0 && IsDigit(inside[digits - 1])) --digits;
  if (digits == 0 || digits == inside.size() || inside.size() - digits > 6)
    return std::nullopt;
  Prefix prefix;
  prefix.name = inside.substr(0, digits);
  for (char c : prefix.name) {
    if (!std::isalpha(static_cast<unsigned char>(c)) && c != '_' && c != '-')
      return std::nullopt;
  }
  for (char c : inside.substr(digits))
    prefix.number = prefix.number * 10 + (c - '0');
  prefix.size = close + 2;
  // torch writes `[rank0]: ` with a space; torchrun's `[default0]:` has
  // none, and what follows may be indented (a metrics block).
  if (prefix.name == "rank" && prefix.size < line.size() &&
      line[prefix.size] == ' ')
    ++prefix.size;
  return prefix;
}

}  // namespace

RankedLine StripRankPrefix(std::string_view line) {
  RankedLine out;
  bool global = false;
  while (auto prefix = LeadingPrefix(line)) {
    if (prefix->name == "rank") {
      out.rank = prefix->number;
      global = true;
    } else if (!global) {
      out.rank = prefix->number;
    }
    line.remove_prefix(prefix->size);
  }
  out.text = line;
  return out;
}

size_t LastRedrawStart(std::string_view line) {
  size_t end = line.size();
  while (end > 0 && std::isspace(static_cast<unsigned char>(line[end - 1])))
    --end;
  size_t cr = line.substr(0, end).rfind('\r');
  return cr == std::string_view::npos ? 0 : cr + 1;
}

RankedLine VisibleText(std::string_view line) {
  RankedLine out = StripRankPrefix(line);
  size_t start = LastRedrawStart(out.text);
  if (start == 0) return out;
  RankedLine inner = StripRankPrefix(out.text.substr(start));
  if (!out.rank) out.rank = inner.rank;
  out.text = inner.text;
  return out;
}

}  // namespace tuner::runner
