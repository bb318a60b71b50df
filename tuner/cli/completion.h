// Shell completion scripts written from the command line's own definition
// (the registered CLI11 App): verbs, each verb's flags and their choices,
// and experiment names from the database (`tuner experiment-names`, reading
// the --db on the line being completed) where a verb takes NAME.
#ifndef TUNER_TUNER_CLI_COMPLETION_H_
#define TUNER_TUNER_CLI_COMPLETION_H_

#include <CLI/CLI.hpp>
#include <string>

namespace tuner::cli {

// A bash script defining _tuner and `complete -F _tuner tuner`; works with
// or without the bash-completion package (files fall back to readline's).
std::string BashCompletion(const CLI::App& root);

// A zsh script for fpath (`_tuner`, #compdef tuner) or to source.
std::string ZshCompletion(const CLI::App& root);

}  // namespace tuner::cli

#endif  // TUNER_TUNER_CLI_COMPLETION_H_
