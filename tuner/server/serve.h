// `tuner serve`: the tuning service, and the CLI verbs that talk to it.
#ifndef TUNER_TUNER_SERVER_SERVE_H_
#define TUNER_TUNER_SERVER_SERVE_H_

#include <optional>
#include <string>
#include <vector>

namespace tuner::server {

struct ServeOptions {
  std::string listen = "127.0.0.1:8080";  // host:port; port 0: any free
  std::string db_path = "tuner.db";
  // The token: read from this file, else from $TUNER_TOKEN, else the one
  // kept in `<db>.token` (created on first start, mode 0600).
  std::optional<std::string> token_file;
  // Names besides the bound address and localhost that a request's Host
  // may give (--allow-host).
  std::vector<std::string> allow_hosts;
  int http_threads = 2;
  bool resume = true;  // take up experiments a previous service left running
};

// Runs the service until SIGINT/SIGTERM (a second one kills the trials);
// returns the exit code. Prints "listening on http://HOST:PORT" on stdout
// once it accepts connections, then "dashboard: URL/?token=TOKEN".
int Serve(const ServeOptions& options);

}  // namespace tuner::server

#endif  // TUNER_TUNER_SERVER_SERVE_H_
