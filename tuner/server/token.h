// The service's token: what mutating requests (and, off loopback, reads)
// must carry, where `tuner serve` keeps it and where the CLI finds it.
#ifndef TUNER_TUNER_SERVER_TOKEN_H_
#define TUNER_TUNER_SERVER_TOKEN_H_

#include <optional>
#include <string>

#include "core/result.h"

namespace tuner::server {

// The first line of `file`, else $TUNER_TOKEN, without trailing spaces;
// "" when neither is given. kInvalidArgument when `file` cannot be read.
core::Result<std::string> ReadToken(const std::optional<std::string>& file);

// Where the service keeps the token of database `db_path`: `<db>.token`.
std::string TokenPathFor(const std::string& db_path);

// The token kept at `path`. When there is none, creates it: 64 hex digits
// from /dev/urandom, written with O_CREAT|O_EXCL|O_NOFOLLOW and mode 0600.
// kInvalidArgument, saying why, unless `path` is a regular file (not a
// symlink) owned by this user that nobody else may read or write, holding
// a token of at least 32 characters.
core::Result<std::string> LoadOrCreateTokenFile(const std::string& path);

// The CLI's token: `file`, else $TUNER_TOKEN, else the first line of
// `<db_path>.token` when it exists and can be read; "" when none.
core::Result<std::string> FindClientToken(
    const std::optional<std::string>& file, const std::string& db_path);

}  // namespace tuner::server

#endif  // TUNER_TUNER_SERVER_TOKEN_H_
