// A TrialRunner without processes, for sweep tests that must be
// deterministic: it records what the sweep asks, and the test decides what
// each trial reports and when it exits. Like LocalRunner it never calls the
// sweep back from inside one of the sweep's own calls: exits it causes
// (Stop, KillAll) are posted to the loop.
#ifndef TUNER_TESTS_TUNER_FAKE_RUNNER_H_
#define TUNER_TESTS_TUNER_FAKE_RUNNER_H_

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <map>
#include <set>
#include <utility>  // before Asio: Boost 1.74 with GCC 12 needs it
#include <vector>

#include "trial_runner/trial_runner.h"

namespace tuner::testing {

class FakeRunner : public runner::TrialRunner {
 public:
  FakeRunner(boost::asio::io_context& io, runner::RunnerObserver& observer)
      : io_(io), observer_(observer) {}

  // What the sweep asked, in order.
  std::vector<runner::TrialLaunch> started;
  std::vector<core::TrialId> stopped;  // Stop and StopAfter

  // Reports each trial printed before the runner watched its output:
  // handed over inside Start(), as LocalRunner hands them over.
  std::vector<core::Metrics> printed_at_start;

  core::Status Start(const runner::TrialLaunch& launch) override {
    started.push_back(launch);
    running_.insert(launch.trial);
    for (const auto& metrics : printed_at_start) Report(launch.trial, metrics);
    return core::Status::Ok();
  }
  // Adopted trials whose shim had ended, and the exit its status file
  // gives: delivered at once after Adopt(), as LocalRunner delivers it.
  std::map<core::TrialId, runner::TrialExit> ended;

  core::Status Adopt(const runner::Adoption& adoption) override {
    running_.insert(adoption.trial);
    if (auto it = ended.find(adoption.trial); it != ended.end())
      PostExit(adoption.trial, it->second);
    return core::Status::Ok();
  }
  // The trial ends by SIGTERM, as a trial that obeys it.
  void Stop(core::TrialId trial) override {
    if (!running_.count(trial) || stopping_.count(trial)) return;
    stopping_.insert(trial);
    stopped.push_back(trial);
    runner::TrialExit exit;
    exit.signal = 15;
    exit.stop_requested = true;
    PostExit(trial, exit);
  }
  void StopAfter(core::TrialId trial, std::chrono::milliseconds) override {
    Stop(trial);
  }
  void KillAll() override {
    for (core::TrialId trial : std::set<core::TrialId>(running_)) {
      runner::TrialExit exit;
      exit.signal = 9;
      exit.stop_requested = true;
      PostExit(trial, exit);
    }
  }
  void Detach() override { running_.clear(); }
  size_t running() const override { return running_.size(); }

  // The test's verbs: a report from `trial`, or its exit with `code`.
  void Report(core::TrialId trial, core::Metrics metrics) {
    observer_.OnMetrics(trial, std::move(metrics), ++offsets_[trial]);
  }
  void Exit(core::TrialId trial, int code) {
    runner::TrialExit exit;
    exit.exit_code = code;
    running_.erase(trial);
    stopping_.erase(trial);
    observer_.OnExit(trial, exit);
  }
  bool IsRunning(core::TrialId trial) const { return running_.count(trial); }

 private:
  void PostExit(core::TrialId trial, runner::TrialExit exit) {
    boost::asio::post(io_, [this, trial, exit] {
      if (!running_.erase(trial)) return;
      stopping_.erase(trial);
      observer_.OnExit(trial, exit);
    });
  }

  boost::asio::io_context& io_;
  runner::RunnerObserver& observer_;
  std::set<core::TrialId> running_;
  std::set<core::TrialId> stopping_;
  std::map<core::TrialId, int64_t> offsets_;
};

}  // namespace tuner::testing

#endif  // TUNER_TESTS_TUNER_FAKE_RUNNER_H_
