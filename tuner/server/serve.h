// `tuner serve`: the tuning service, and the CLI verbs that talk to it.
#ifndef TUNER_TUNER_SERVER_SERVE_H_
#define TUNER_TUNER_SERVER_SERVE_H_

#include <optional>
#include <string>

namespace tuner::server {

struct ServeOptions {
  std::string listen = "127.0.0.1:8080";  // host:port; port 0: any free
  std::string db_path = "tuner.db";
  // Required when `listen` is not a loopback address (else optional):
  // read from this file, else from $TUNER_TOKEN.
  std::optional<std::string> token_file;
  int http_threads = 2;
  bool resume = true;  // take up experiments a previous service left running
};

// Runs the service until SIGINT/SIGTERM (a second one kills the trials);
// returns the exit code. Prints "listening on http://HOST:PORT" on stdout
// once it accepts connections.
int Serve(const ServeOptions& options);

}  // namespace tuner::server

#endif  // TUNER_TUNER_SERVER_SERVE_H_
