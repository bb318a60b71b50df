// TrainerStateRunner: reports read from checkpoints' trainer_state.json,
// handed over by poll and before the trial's exit, past the resumed ones.
#include "trial_runner/processes/trainer_state_runner.h"

#include <boost/asio/io_context.hpp>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <utility>  // before Asio: Boost 1.74 with GCC 12 needs it
#include <vector>

#include "tests/catch.h"
#include "tests/support/fresh_dir.h"

namespace tuner::testing {
namespace {

namespace fs = std::filesystem;
using runner::TrialExit;

// Runs nothing: the test says when a trial exits.
class QuietRunner : public runner::TrialRunner {
 public:
  explicit QuietRunner(runner::RunnerObserver& observer)
      : observer_(observer) {}
  core::Status Start(const runner::TrialLaunch& launch) override {
    running_.insert(launch.trial);
    return core::Status::Ok();
  }
  core::Status Adopt(const runner::Adoption& adoption) override {
    running_.insert(adoption.trial);
    return core::Status::Ok();
  }
  void Stop(core::TrialId trial) override { stopped.push_back(trial); }
  void StopAfter(core::TrialId, std::chrono::milliseconds) override {}
  void KillAll() override {}
  void Detach() override { running_.clear(); }
  size_t running() const override { return running_.size(); }
  void Exit(core::TrialId trial) {
    running_.erase(trial);
    TrialExit exit;
    exit.exit_code = 0;
    observer_.OnExit(trial, exit);
  }
  std::vector<core::TrialId> stopped;

 private:
  runner::RunnerObserver& observer_;
  std::set<core::TrialId> running_;
};

// What the sweep would see, in order: "report epoch=E" or "exit".
class Log : public runner::RunnerObserver {
 public:
  void OnMetrics(core::TrialId trial, core::Metrics metrics,
                 int64_t offset) override {
    CHECK(offset == -1);
    events.push_back(std::to_string(trial) + " report epoch=" +
                     core::FormatDouble(metrics.at(0).second));
    if (on_report) on_report(trial);
  }
  void OnExit(core::TrialId trial, const TrialExit&) override {
    events.push_back(std::to_string(trial) + " exit");
  }
  std::vector<std::string> events;
  std::function<void(core::TrialId)> on_report;
};

// checkpoint-STEP/trainer_state.json with one log_history entry per epoch.
void Checkpoint(const fs::path& dir, int step, int epochs) {
  fs::path folder = dir / ("checkpoint-" + std::to_string(step));
  fs::create_directories(folder);
  std::string history;
  for (int e = 1; e <= epochs; ++e)
    history += (e > 1 ? ", " : "") + std::string("{\"epoch\": ") +
               std::to_string(e) + "}";
  std::ofstream(folder / "trainer_state.json")
      << "{\"epoch\": " << epochs << ", \"global_step\": " << step
      << ", \"log_history\": [" << history << "]}";
}

struct Rig {
  Rig()
      : dir(FreshDir("trainer-state-runner")),
        runner(io, log, std::chrono::milliseconds(1),
               [this](runner::RunnerObserver& observer) {
                 auto quiet = std::make_unique<QuietRunner>(observer);
                 inner = quiet.get();
                 return quiet;
               }) {}
  ~Rig() { fs::remove_all(dir); }
  runner::TrialLaunch Launch(core::TrialId trial, size_t skip) {
    runner::TrialLaunch launch;
    launch.trial = trial;
    launch.trainer_state = runner::TrainerStateSource{
        dir.string(), "checkpoint-*/trainer_state.json", skip};
    return launch;
  }
  fs::path dir;
  boost::asio::io_context io;
  Log log;
  QuietRunner* inner = nullptr;
  runner::TrainerStateRunner runner;
};

TEST_CASE(
    "a trial's trainer_state entries are handed over once each, the "
    "last ones before its exit",
    "[runner][trainer_state]") {
  Rig rig;
  Checkpoint(rig.dir, 10, 1);  // the checkpoint the attempt resumed
  REQUIRE(rig.runner.Start(rig.Launch(4, 1)).ok());
  Checkpoint(rig.dir, 20, 2);
  rig.io.run_one();  // the poll
  CHECK(rig.log.events == std::vector<std::string>{"4 report epoch=2"});
  rig.io.restart();
  rig.io.run_one();  // the next poll: nothing new
  CHECK(rig.log.events.size() == 1);
  Checkpoint(rig.dir, 30, 4);
  rig.inner->Exit(4);
  CHECK(rig.log.events ==
        std::vector<std::string>{"4 report epoch=2", "4 report epoch=3",
                                 "4 report epoch=4", "4 exit"});
  CHECK(rig.runner.running() == 0);
}

TEST_CASE(
    "an adopted trial's entries are handed over from the first, and "
    "a trial stopped from a report is still read to its exit",
    "[runner][trainer_state]") {
  Rig rig;
  Checkpoint(rig.dir, 20, 2);
  runner::Adoption adoption;
  adoption.trial = 5;
  adoption.launch = rig.Launch(5, 2);  // skip is the launch's, not adopted
  rig.log.on_report = [&](core::TrialId trial) { rig.runner.Stop(trial); };
  REQUIRE(rig.runner.Adopt(adoption).ok());
  rig.inner->Exit(5);
  CHECK(rig.log.events == std::vector<std::string>{"5 report epoch=1",
                                                   "5 report epoch=2",
                                                   "5 exit"});
  CHECK(rig.inner->stopped == std::vector<core::TrialId>{5, 5});
}

TEST_CASE("a trial without a trainer_state source passes through",
          "[runner][trainer_state]") {
  Rig rig;
  Checkpoint(rig.dir, 20, 2);
  runner::TrialLaunch plain;
  plain.trial = 6;
  REQUIRE(rig.runner.Start(plain).ok());
  CHECK(rig.io.poll() == 0);  // no poll armed
  rig.inner->Exit(6);
  CHECK(rig.log.events == std::vector<std::string>{"6 exit"});
}

}  // namespace
}  // namespace tuner::testing
