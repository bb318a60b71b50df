// The service's token: what mutating requests must carry, and what the CLI
// sends with --server.
#ifndef TUNER_TUNER_SERVER_TOKEN_H_
#define TUNER_TUNER_SERVER_TOKEN_H_

#include <optional>
#include <string>

#include "tuner/core/result.h"

namespace tuner::server {

// The first line of `file`, else $TUNER_TOKEN, without trailing spaces;
// "" when neither is given. kInvalidArgument when `file` cannot be read.
core::Result<std::string> ReadToken(const std::optional<std::string>& file);

}  // namespace tuner::server

#endif  // TUNER_TUNER_SERVER_TOKEN_H_
