// The verbs about the command line itself, registered after the verb table
// (verbs.h): `help [VERB]`, `version`, `completion bash|zsh`, and two hidden
// ones the build and the completion scripts use: `man-page` (the roff man
// page) and `experiment-names` (one name a line, for completing NAME).
#ifndef TUNER_TUNER_CLI_OWN_VERBS_H_
#define TUNER_TUNER_CLI_OWN_VERBS_H_

#include <span>

#include "tuner/cli/verbs.h"

namespace tuner::cli {

std::span<const Verb> OwnVerbs();

}  // namespace tuner::cli

#endif  // TUNER_TUNER_CLI_OWN_VERBS_H_
