#include "tuner/cli/suggest.h"

#include <algorithm>
#include <vector>

#include "tuner/config/config_values.h"

namespace tuner::cli {

std::optional<std::string> Closest(std::string_view word,
                                   std::span<const std::string> names) {
  if (word.empty()) return std::nullopt;
  const int limit = word.size() <= 3 ? 1 : 2;
  std::optional<std::string> best;
  int best_distance = limit + 1;
  bool tie = false;
  for (const std::string& name : names) {
    int distance = static_cast<int>(config::EditDistance(word, name));
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
