// "Did you mean ...?" for a mistyped word among known names.
#ifndef TUNER_TUNER_CLI_SUGGEST_H_
#define TUNER_TUNER_CLI_SUGGEST_H_

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace tuner::cli {

// The name `word` most likely meant: the nearest within 2 edits
// (config::EditDistance; 1 for words of 3 letters or fewer), else the only name
// that starts with `word`; none when there is no such name or two are equally
// near.
std::optional<std::string> Closest(std::string_view word,
                                   std::span<const std::string> names);

}  // namespace tuner::cli

#endif  // TUNER_TUNER_CLI_SUGGEST_H_
