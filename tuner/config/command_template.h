// Command templates: splitting into argv and filling {placeholders}.
#ifndef TUNER_TUNER_CONFIG_COMMAND_TEMPLATE_H_
#define TUNER_TUNER_CONFIG_COMMAND_TEMPLATE_H_

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace tuner {

// Splits a command line into words as a POSIX shell would, without any
// expansion: whitespace separates, '...' and "..." quote, backslash escapes.
core::Result<std::vector<std::string>> SplitCommand(std::string_view command);

// The names inside {braces} in `text`, in order; {{ and }} are literal braces.
// Fails on an unclosed brace.
core::Result<std::vector<std::string>> Placeholders(std::string_view text);

// `text` with each {name} replaced by lookup(name) (kept as is when lookup
// returns nullopt) and {{ }} unescaped.
std::string Fill(
    std::string_view text,
    const std::function<std::optional<std::string>(std::string_view)>& lookup);

// `text` quoted for /bin/sh: 'it'\''s'.
std::string ShellQuote(std::string_view text);

// `word` as is when it needs no quoting, else ShellQuote(word).
std::string ShellQuoteWord(std::string_view word);

}  // namespace tuner

#endif  // TUNER_TUNER_CONFIG_COMMAND_TEMPLATE_H_
