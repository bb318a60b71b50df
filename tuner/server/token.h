// The service's token: what mutating requests (and, off loopback, reads)
// must carry, where `tuner serve` keeps it and where the CLI finds it.
#ifndef TUNER_TUNER_SERVER_TOKEN_H_
#define TUNER_TUNER_SERVER_TOKEN_H_

#include <cstdint>
#include <optional>
#include <string>

#include "core/result.h"
#include "tuner/server/http_client.h"

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

// Where `tuner serve` records the service its `<db>.token` belongs to:
// `<db>.token.server`, two lines: "IP:PORT" ("[IPv6]:PORT"), the address it
// listens on, and its pid; written at each start, removed at a clean stop.
std::string TokenServerPathFor(const std::string& db_path);

// Records `address` and `port` (what the service listens on) and `pid`
// (the service's process) as the server `<db_path>.token` belongs to: a
// file of mode 0600, replaced whole.
core::Status BindTokenToServer(const std::string& db_path,
                               const std::string& address, uint16_t port,
                               int pid);

// Removes `<db_path>.token.server` when it records `pid` (the service
// stopping); leaves it when another service has recorded itself since.
void UnbindTokenFromServer(const std::string& db_path, int pid);

// The CLI's token and where it may go.
struct ClientToken {
  std::string value;   // "" when there is none
  std::string source;  // what gave it, for messages: a path or $TUNER_TOKEN
  // True for the token found beside the database (`<db>.token`): it goes
  // only to the server recorded in `bound_to` ("IP:PORT"; "" when no
  // service recorded one). A token given with --token-file or $TUNER_TOKEN
  // goes where the user's --server says.
  bool bound = false;
  std::string bound_to;
  int bound_pid = 0;  // the recorded service's pid; 0 when none
  // Why the token beside the database is not sent (it or its record is a
  // symlink, not a regular file, another user's, or others may read or
  // write it); "" when it may be.
  std::string refused;
};

// The CLI's token: `file`, else $TUNER_TOKEN, else the first line of
// `<db_path>.token` when it exists (bound to what `<db_path>.token.server`
// records); an empty value when none. Both files beside the database are
// read only when private (regular files, not symlinks, owned by this user,
// mode 0600, as the service requires of its token); otherwise the token is
// empty and `refused` says why.
core::Result<ClientToken> FindClientToken(
    const std::optional<std::string>& file, const std::string& db_path);

// Whether `token` may be sent to the server the client reached (`peer`):
// a bound token only to the server it is
// bound to (its address, or any address of this machine when that server
// listens on all of them, and its port); any token off this machine only
// when `plain_http_allowed` (--allow-plain-http), as plain HTTP shows it to
// the network; never a refused one. kInvalidArgument saying why not.
core::Status MayCarryToken(const ClientToken& token, const PeerAddress& peer,
                           bool plain_http_allowed);

// Whether the service recorded for a bound token still listens on the port
// the client reached on this machine: its pid holds that listening socket
// (ProcessListensOn), so that a process that took the port after the
// service stopped gets no token. Local only: a server off this machine is
// not checked (the token goes there only under MayCarryToken's rules).
// kInvalidArgument saying the recorded service is gone.
core::Status RecordedServiceListens(const ClientToken& token,
                                    const PeerAddress& peer);

}  // namespace tuner::server

#endif  // TUNER_TUNER_SERVER_TOKEN_H_
