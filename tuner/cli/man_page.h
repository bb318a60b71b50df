// The tuner(1) man page in roff (man macros), written from the command
// line's own definition: every verb with its arguments and flags.
#ifndef TUNER_TUNER_CLI_MAN_PAGE_H_
#define TUNER_TUNER_CLI_MAN_PAGE_H_

#include <CLI/CLI.hpp>
#include <string>

namespace tuner::cli {

// `version`: "0.1.0", shown in the page's footer. No date: the same build
// writes the same page.
std::string ManPage(const CLI::App& root, const std::string& version);

}  // namespace tuner::cli

#endif  // TUNER_TUNER_CLI_MAN_PAGE_H_
