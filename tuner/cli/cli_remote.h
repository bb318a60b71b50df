// The CLI verbs with --server URL: they ask a running `tuner serve` and
// print what the same verb prints with --db.
#ifndef TUNER_TUNER_CLI_CLI_REMOTE_H_
#define TUNER_TUNER_CLI_CLI_REMOTE_H_

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tuner {

namespace server {
struct ClientResponse;
}  // namespace server

struct RemoteOptions {
  std::string server;  // http://HOST:PORT
  // The token: this file, else $TUNER_TOKEN, else `<db_path>.token`, the
  // one a `tuner serve --db db_path` on this machine keeps.
  std::optional<std::string> token_file;
  std::string db_path = "tuner.db";
  // --allow-plain-http: a token may go to a server off this machine.
  bool allow_plain_http = false;
  // How long `stop` waits for the experiment's trials to end.
  std::chrono::milliseconds stop_wait{120000};
};

// Sends one request of a --server verb. Reads (GET) go without a token and
// get one only when the server answers 401; other requests carry it; a
// token goes only where MayCarryToken (token.h) allows. 0 with the answer
// in `out` when the server accepted it (2xx); else the exit code, after
// printing why: 2 for a refused request (400, 409), an unreadable token
// file or a token that may not go there, 1 otherwise.
int RemoteExchange(const RemoteOptions& remote, const std::string& method,
                   const std::string& target, const std::string& body,
                   server::ClientResponse& out);

// 1, after printing what the service answers for an unknown name, when
// `name` is none an experiment can have (config::IsName): the request
// would not name it (a '/' or '..' in the path). 0 otherwise.
int RefuseImpossibleName(const std::string& name);

// Each returns the exit code (0, 1 failure, 2 bad input).
// `overrides`: `--set KEY=VALUE` (and `name=` for --name), applied here;
// the service gets the config with them (OverriddenConfigText).
int RemoteSubmit(const std::string& config_path, const RemoteOptions& remote,
                 const std::vector<std::string>& overrides = {});
int RemoteStatus(const std::string& name, const RemoteOptions& remote,
                 const std::string& format = "table");
// `by`: last | best (see storage::BestBy).
int RemoteBest(const std::string& name, int64_t top, const std::string& format,
               const RemoteOptions& remote, const std::string& by = "last");
int RemoteTrials(const std::string& name, const std::string& format,
                 const RemoteOptions& remote);
int RemoteReports(const std::string& name, const std::string& format,
                  const RemoteOptions& remote);
int RemoteStop(const std::string& name, bool force,
               const RemoteOptions& remote);
int RemoteResume(const std::string& name, const RemoteOptions& remote);
// cli_remote_lifecycle.cc: POST /api/experiments/NAME/delete (the caller
// has asked the user) and .../extend?trials=N. Like the verbs with --db:
// 1 for an unknown name (as `tuner best` says it) or while it runs (409),
// 2 for a bad count.
int RemoteDelete(const std::string& name, const RemoteOptions& remote);
int RemoteExtend(const std::string& name, int64_t trials,
                 const RemoteOptions& remote);

}  // namespace tuner

#endif  // TUNER_TUNER_CLI_CLI_REMOTE_H_
