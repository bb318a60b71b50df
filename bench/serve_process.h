// Server: `tuner serve` started for a benchmark (serve_load,
// dashboard_load). The binary is TUNER_BINARY, a compile definition.
#ifndef TUNER_BENCH_SERVE_PROCESS_H_
#define TUNER_BENCH_SERVE_PROCESS_H_

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "trial_runner/processes/spawn.h"

namespace tuner::bench {

[[noreturn]] inline void ServerDie(const std::string& message) {
  std::cerr << "tuner serve: " << message << "\n";
  std::exit(1);
}

// `tuner serve` on a free loopback port, stopped (SIGTERM) on destruction.
class Server {
 public:
  // `extra` args are appended to the command line.
  explicit Server(const std::filesystem::path& dir,
                  const std::vector<std::string>& extra = {}) {
    tuner::runner::SpawnRequest request;
    request.argv = {TUNER_BINARY,     "serve", "--listen",
                    "127.0.0.1:0",    "--db",  (dir / "tuner.db").string(),
                    "--http-threads", "2"};
    request.argv.insert(request.argv.end(), extra.begin(), extra.end());
    request.cwd = dir.string();
    request.stdout_path = (dir / "serve.out").string();
    request.stderr_path = (dir / "serve.err").string();
    auto spawned = tuner::runner::Spawn(request);
    if (!spawned.ok()) ServerDie(spawned.message());
    process_ = spawned.value();
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (url_.empty() && std::chrono::steady_clock::now() < deadline) {
      std::ifstream in(dir / "serve.out");
      std::string word;
      while (in >> word) {
        size_t at = word.find("/?token=");
        if (at != std::string::npos) token_ = word.substr(at + 8);
        // The first URL: "listening on http://HOST:PORT".
        if (url_.empty() && word.rfind("http://", 0) == 0 &&
            at == std::string::npos) {
          url_ = word;
        }
      }
      if (token_.empty()) url_.clear();  // wait for the dashboard's line
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (url_.empty())
      ServerDie("tuner serve did not start; see " + dir.string());
  }
  ~Server() {
    kill(process_.pid, SIGTERM);
    waitpid(process_.pid, nullptr, 0);
    close(process_.pidfd);
  }
  const std::string& url() const { return url_; }
  const std::string& token() const { return token_; }
  // Seconds of CPU the server process has used (utime + stime).
  double CpuSeconds() const {
    std::ifstream in("/proc/" + std::to_string(process_.pid) + "/stat");
    std::string line;
    std::getline(in, line);
    std::istringstream rest(line.substr(line.rfind(')') + 2));
    std::string field;
    long ticks = 0;
    for (int i = 3; i <= 15 && rest >> field; ++i) {
      if (i == 14 || i == 15) ticks += std::stol(field);
    }
    return static_cast<double>(ticks) /
           static_cast<double>(sysconf(_SC_CLK_TCK));
  }

 private:
  tuner::runner::SpawnedProcess process_;
  std::string url_;
  std::string token_;  // what a submit needs
};

}  // namespace tuner::bench

#endif  // TUNER_BENCH_SERVE_PROCESS_H_
