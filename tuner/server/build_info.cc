#include "tuner/server/build_info.h"

namespace tuner::server {

std::string_view BuildVersion() { return TUNER_BUILD_VERSION; }
std::string_view BuildCommit() { return TUNER_BUILD_COMMIT; }

}  // namespace tuner::server
