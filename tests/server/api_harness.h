// What the tests that drive Api::Handle by hand (no sockets, no sweeps)
// share: a Control that answers at once, a scratch directory for the
// database, and a synchronous call.
#ifndef TUNER_TESTS_SERVER_API_HARNESS_H_
#define TUNER_TESTS_SERVER_API_HARNESS_H_

#include <unistd.h>

#include <deque>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tests/catch.h"
#include "tuner/server/api.h"

namespace tuner::testing {

// Submit, stop and resume succeed at once; Running() is `running`.
// Offloaded work runs at once, or waits in `queued` when `queue_offloads`.
class FakeControl : public server::Control {
 public:
  void Submit(ExperimentConfig config, std::string, Done done) override {
    submitted.push_back(config.name);
    done(core::Status::Ok());
  }
  void Stop(const std::string&, bool, Done done) override {
    done(core::Status::Ok());
  }
  void Resume(const std::string&, Done done) override {
    done(core::Status::Ok());
  }
  std::vector<server::RunningInfo> Running() const override { return running; }
  void Offload(std::function<void()> work) override {
    if (!queue_offloads) return work();
    queued.push_back(std::move(work));
  }

  std::vector<server::RunningInfo> running;
  bool queue_offloads = false;
  std::deque<std::function<void()>> queued;
  std::vector<std::string> submitted;  // the names Submit() was given
};

// An empty directory of this process under the temp dir, removed at the
// end; db() is the database path in it.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& prefix)
      : path_(std::filesystem::temp_directory_path() /
              (prefix + "-" + std::to_string(getpid()))) {
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() { std::filesystem::remove_all(path_); }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::string db() const { return (path_ / "tuner.db").string(); }

 private:
  std::filesystem::path path_;
};

// `api`'s answer to a GET of `target` from 127.0.0.1, which must come
// before Handle() returns.
inline server::Response GetNow(server::Api& api, const std::string& target) {
  server::Request request;
  request.method = "GET";
  request.target = target;
  request.host = "127.0.0.1";
  std::optional<server::Response> answer;
  api.Handle(request, [&answer](server::Response r) { answer = std::move(r); });
  REQUIRE(answer);
  return *answer;
}

}  // namespace tuner::testing

#endif  // TUNER_TESTS_SERVER_API_HARNESS_H_
