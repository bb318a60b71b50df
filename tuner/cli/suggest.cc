#include "tuner/cli/suggest.h"

#include <algorithm>
#include <vector>

namespace tuner::cli {

namespace {

constexpr size_t kMaxLength = 64;

}  // namespace

int EditDistance(std::string_view a, std::string_view b) {
  a = a.substr(0, kMaxLength);
  b = b.substr(0, kMaxLength);
  const size_t columns = b.size() + 1;
  // d[i][j]: the distance between a's first i letters and b's first j.
  std::vector<int> d((a.size() + 1) * columns);
  auto at = [&](size_t i, size_t j) -> int& { return d[i * columns + j]; };
  for (size_t i = 0; i <= a.size(); ++i) at(i, 0) = static_cast<int>(i);
  for (size_t j = 0; j <= b.size(); ++j) at(0, j) = static_cast<int>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      int change = a[i - 1] == b[j - 1] ? 0 : 1;
      at(i, j) = std::min(
          {at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + change});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        at(i, j) = std::min(at(i, j), at(i - 2, j - 2) + 1);
      }
    }
  }
  return at(a.size(), b.size());
}

std::optional<std::string> Closest(std::string_view word,
                                   std::span<const std::string> names) {
  if (word.empty()) return std::nullopt;
  const int limit = word.size() <= 3 ? 1 : 2;
  std::optional<std::string> best;
  int best_distance = limit + 1;
  bool tie = false;
  for (const std::string& name : names) {
    int distance = EditDistance(word, name);
    if (distance < best_distance) {
      best = name;
      best_distance = distance;
      tie = false;
    } else if (distance == best_distance) {
      tie = true;
    }
  }
  if (best && !tie) return best;
  std::optional<std::string> prefixed;
  for (const std::string& name : names) {
    if (!name.starts_with(word)) continue;
    if (prefixed) return std::nullopt;
    prefixed = name;
  }
  return prefixed;
}

}  // namespace tuner::cli
