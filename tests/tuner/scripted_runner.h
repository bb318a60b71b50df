// ScriptedRunner: a TrialRunner without processes whose trials behave as a
// test's script says, in the time of an injected Clock (a ManualClock in
// tests). It keeps LocalRunner's contract where the sweep can tell:
// - reports arrive one `step` apart, each with a growing stdout offset;
// - a trial that outlives `launch.timeout`, or is silent for
//   `launch.idle_timeout`, ends as the shim ends it (timed_out / idle);
// - Stop ends a trial with SIGTERM after `stop_delay` (a trial that obeys
//   it), StopAfter only if it has not exited by itself by then; any exit
//   after Stop is marked stop_requested, as LocalRunner marks it;
// - each attempt's stdout offsets start again from 0 (its log is new);
// - a trial's stderr text lands in `launch.spawn.stderr_path` before its
//   exit is reported, and stdout.log / stderr.log are created at start;
// - the observer is never called from inside one of the sweep's calls:
//   reports come from timers, exits are posted to the loop.
#ifndef TUNER_TESTS_TUNER_SCRIPTED_RUNNER_H_
#define TUNER_TESTS_TUNER_SCRIPTED_RUNNER_H_

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <chrono>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>  // before Asio: Boost 1.74 with GCC 12 needs it
#include <vector>

#include "trial_runner/trial_runner.h"
#include "tuner/base/clock.h"

namespace tuner::testing {

// What one attempt of a trial does.
struct TrialScript {
  std::vector<core::Metrics> reports;    // in order
  std::chrono::milliseconds step{1000};  // before each report
  // How it ends after its last report: an exit code, or (nullopt) it runs
  // on, silent, until it is stopped or times out.
  std::optional<int> exit_code = 0;
  std::string stderr_text;  // what it printed on stderr
  // Instead of its exit code: its cluster node failed under it (a
  // SlurmRunner's EndCause::kNodeFailed) or someone cancelled its step.
  bool node_failed = false;
  bool cancelled = false;
};

// The script of `launch`'s trial; `attempt` counts its starts from 1.
using ScriptFor =
    std::function<TrialScript(const runner::TrialLaunch& launch, int attempt)>;

// What examples/toy_trainer prints, scripted: score = q * epoch / (epoch
// + 1), loss = 1 - score, one report a second for `epochs` epochs, exit 0.
inline TrialScript ToyTrainerScript(double q, int epochs) {
  TrialScript script;
  for (int epoch = 1; epoch <= epochs; ++epoch) {
    double score = q * epoch / (epoch + 1);
    script.reports.push_back(
        {{"epoch", epoch}, {"score", score}, {"loss", 1 - score}});
  }
  return script;
}

// The value of `--flag VALUE` in a trial's argv ("" when absent): scripts
// read the params the sweep filled into the command line.
inline std::string FlagValue(const runner::TrialLaunch& launch,
                             const std::string& flag) {
  const auto& argv = launch.spawn.argv;
  for (size_t i = 0; i + 1 < argv.size(); ++i)
    if (argv[i] == flag) return argv[i + 1];
  return "";
}

class ScriptedRunner : public runner::TrialRunner {
 public:
  ScriptedRunner(boost::asio::io_context& io, runner::RunnerObserver& observer,
                 Clock& clock, ScriptFor script)
      : io_(io),
        observer_(observer),
        clock_(clock),
        script_(std::move(script)) {}
  ~ScriptedRunner() override { *alive_ = false; }

  // What the sweep asked, in order.
  std::vector<runner::TrialLaunch> started;
  std::vector<core::TrialId> stop_requests;  // Stop, and StopAfter's stop
  // Between Stop and the exit it causes.
  std::chrono::milliseconds stop_delay{100};

  core::Status Start(const runner::TrialLaunch& launch) override {
    if (running_.count(launch.trial))
      return core::Internal("trial is running already");
    started.push_back(launch);
    for (const auto& path :
         {launch.spawn.stdout_path, launch.spawn.stderr_path}) {
      std::ofstream(path, std::ios::trunc);  // as the shim creates them
    }
    Attempt& attempt = running_[launch.trial];
    attempt.launch = launch;
    attempt.script = script_(launch, ++attempts_[launch.trial]);
    attempt.step_timer = clock_.MakeTimer();
    attempt.stop_timer = clock_.MakeTimer();
    attempt.timeout_timer = clock_.MakeTimer();
    attempt.idle_timer = clock_.MakeTimer();
    if (launch.timeout.count() > 0) {
      attempt.timeout_timer->Schedule(launch.timeout, [this, t = launch.trial] {
        runner::TrialExit exit;
        exit.signal = 9;
        exit.cause = runner::EndCause::kTimedOut;
        End(t, exit);
      });
    }
    ArmIdle(launch.trial, attempt);
    Next(launch.trial, attempt);
    return core::Status::Ok();
  }
  core::Status Adopt(const runner::Adoption&) override {
    return core::Internal("a scripted trial cannot be adopted");
  }
  void Stop(core::TrialId trial) override {
    auto it = running_.find(trial);
    if (it == running_.end() || it->second.stopping) return;
    it->second.stopping = true;
    stop_requests.push_back(trial);
    it->second.stop_timer->Schedule(stop_delay, [this, trial] {
      runner::TrialExit exit;
      exit.signal = 15;
      exit.stop_requested = true;
      End(trial, exit);
    });
  }
  void StopAfter(core::TrialId trial,
                 std::chrono::milliseconds delay) override {
    auto it = running_.find(trial);
    if (it == running_.end() || it->second.stopping) return;
    it->second.stop_timer->Schedule(delay, [this, trial] { Stop(trial); });
  }
  void KillAll() override {
    for (auto& [trial, attempt] : running_) {
      runner::TrialExit exit;
      exit.signal = 9;
      exit.stop_requested = true;
      End(trial, exit);
    }
  }
  void Detach() override { running_.clear(); }
  size_t running() const override { return running_.size(); }

 private:
  struct Attempt {
    runner::TrialLaunch launch;
    TrialScript script;
    size_t next = 0;
    bool stopping = false;
    bool ending = false;  // its exit is posted
    int64_t offset = 0;   // in this attempt's stdout
    std::unique_ptr<Clock::Timer> step_timer, stop_timer, timeout_timer,
        idle_timer;
  };

  void ArmIdle(core::TrialId trial, Attempt& attempt) {
    if (attempt.launch.idle_timeout.count() <= 0) return;
    attempt.idle_timer->Schedule(attempt.launch.idle_timeout, [this, trial] {
      runner::TrialExit exit;
      exit.signal = 9;
      exit.cause = runner::EndCause::kIdle;
      End(trial, exit);
    });
  }

  void Next(core::TrialId trial, Attempt& attempt) {
    if (attempt.next < attempt.script.reports.size()) {
      attempt.step_timer->Schedule(attempt.script.step,
                                   [this, trial] { Deliver(trial); });
    } else if (attempt.script.node_failed || attempt.script.cancelled) {
      runner::TrialExit exit;
      exit.cause = attempt.script.node_failed ? runner::EndCause::kNodeFailed
                                              : runner::EndCause::kCancelled;
      exit.lost_why = attempt.script.node_failed
                          ? "node n2 failed or was drained (down*)"
                          : "*** STEP 7.2 ON n1 CANCELLED ***";
      End(trial, exit);
    } else if (attempt.script.exit_code) {
      runner::TrialExit exit;
      exit.exit_code = *attempt.script.exit_code;
      End(trial, exit);
    }  // else it runs on until stopped or timed out
  }

  void Deliver(core::TrialId trial) {
    auto it = running_.find(trial);
    if (it == running_.end() || it->second.ending) return;
    Attempt& attempt = it->second;
    core::Metrics metrics = attempt.script.reports[attempt.next++];
    ArmIdle(trial, attempt);
    observer_.OnMetrics(trial, std::move(metrics), ++attempt.offset);
    it = running_.find(trial);  // the sweep may have stopped it
    if (it == running_.end() || it->second.ending) return;
    Next(trial, it->second);
  }

  // Writes its stderr, then reports the exit from the loop.
  void End(core::TrialId trial, runner::TrialExit exit) {
    auto it = running_.find(trial);
    if (it == running_.end() || it->second.ending) return;
    Attempt& attempt = it->second;
    attempt.ending = true;
    if (attempt.stopping) exit.stop_requested = true;
    for (auto* timer : {attempt.step_timer.get(), attempt.stop_timer.get(),
                        attempt.timeout_timer.get(), attempt.idle_timer.get()})
      timer->Cancel();
    std::ofstream(attempt.launch.spawn.stderr_path, std::ios::app)
        << attempt.script.stderr_text;
    boost::asio::post(io_, [this, alive = alive_, trial, exit] {
      if (!*alive || !running_.erase(trial)) return;
      observer_.OnExit(trial, exit);
    });
  }

  boost::asio::io_context& io_;
  runner::RunnerObserver& observer_;
  Clock& clock_;
  ScriptFor script_;
  std::map<core::TrialId, Attempt> running_;
  std::map<core::TrialId, int> attempts_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

// A Sweep::Options::make_runner that builds a ScriptedRunner on `clock`.
inline auto MakeScriptedRunner(Clock& clock, ScriptFor script) {
  return [&clock, script](boost::asio::io_context& io,
                          runner::RunnerObserver& observer)
             -> std::unique_ptr<runner::TrialRunner> {
    return std::make_unique<ScriptedRunner>(io, observer, clock, script);
  };
}

}  // namespace tuner::testing

#endif  // TUNER_TESTS_TUNER_SCRIPTED_RUNNER_H_
