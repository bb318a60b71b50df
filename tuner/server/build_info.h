// What was built: the version and the git commit, for /metrics.
#ifndef TUNER_TUNER_SERVER_BUILD_INFO_H_
#define TUNER_TUNER_SERVER_BUILD_INFO_H_

#include <string_view>

namespace tuner::server {

// CMake's PROJECT_VERSION ("0.1.0").
std::string_view BuildVersion();
// The commit CMake configured from (12 hex digits), "unknown" outside git.
std::string_view BuildCommit();

}  // namespace tuner::server

#endif  // TUNER_TUNER_SERVER_BUILD_INFO_H_
