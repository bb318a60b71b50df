// What `tuner --version` and `tuner version` print: the project's version
// from CMake's project(VERSION ...) and the git commit the build was
// configured at, when it was configured from a git checkout.
#ifndef TUNER_TUNER_CLI_VERSION_H_
#define TUNER_TUNER_CLI_VERSION_H_

#include <string>

namespace tuner::cli {

// "0.1.0".
std::string VersionNumber();
// The abbreviated commit ("82f0e01c3a5d"), or "" when unknown.
std::string GitCommit();
// "tuner 0.1.0 (git 82f0e01c3a5d)", or "tuner 0.1.0": one line, no newline.
std::string VersionLine();

}  // namespace tuner::cli

#endif  // TUNER_TUNER_CLI_VERSION_H_
