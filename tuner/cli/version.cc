#include "tuner/cli/version.h"

// TUNER_VERSION and TUNER_GIT_COMMIT come from tuner/cli/CMakeLists.txt, on
// this file only, so that a new commit recompiles nothing else.
#ifndef TUNER_VERSION
#error "TUNER_VERSION is defined by the build"
#endif
#ifndef TUNER_GIT_COMMIT
#define TUNER_GIT_COMMIT ""
#endif

namespace tuner::cli {

std::string VersionNumber() { return TUNER_VERSION; }

std::string GitCommit() { return TUNER_GIT_COMMIT; }

std::string VersionLine() {
  std::string line = "tuner " + VersionNumber();
  if (!GitCommit().empty()) line += " (git " + GitCommit() + ")";
  return line;
}

}  // namespace tuner::cli
