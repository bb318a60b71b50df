// The CLI verbs with --server URL: they ask a running `tuner serve` and
// print what the same verb prints with --db.
#ifndef TUNER_TUNER_SERVER_CLI_REMOTE_H_
#define TUNER_TUNER_SERVER_CLI_REMOTE_H_

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace tuner::server {

struct RemoteOptions {
  std::string server;                     // http://HOST:PORT
  std::optional<std::string> token_file;  // else $TUNER_TOKEN
  // How long `stop` waits for the experiment's trials to end.
  std::chrono::milliseconds stop_wait{120000};
};

// Each returns the exit code (0, 1 failure, 2 bad input).
int RemoteSubmit(const std::string& config_path, const RemoteOptions& remote);
int RemoteStatus(const std::string& name, const RemoteOptions& remote);
int RemoteBest(const std::string& name, int64_t top, const std::string& format,
               const RemoteOptions& remote);
int RemoteTrials(const std::string& name, const std::string& format,
                 const RemoteOptions& remote);
int RemoteStop(const std::string& name, bool force,
               const RemoteOptions& remote);

}  // namespace tuner::server

#endif  // TUNER_TUNER_SERVER_CLI_REMOTE_H_
