// trial.fail_fast: a sweep whose first trials all fail the same way stops
// (ScriptedRunner on a ManualClock: no process).
#include <string>

#include "tests/catch.h"
#include "tests/tuner/sweep_harness.h"

namespace tuner::testing {
namespace {

using core::TrialStatus;

std::string Yaml(const std::string& extra, int slots = 2) {
  return "name: ff\ncommand: /bin/true --lr {lr}\nmetric: score\nmode: max\n"
         "time_attr: epoch\nsearch_space: {lr: {type: uniform, low: 0.1, "
         "high: 0.9}}\nnum_trials: 10\ndevices: {kind: cpu, slots: " +
         std::to_string(slots) + "}\n" + extra;
}

TrialScript Crash(const std::string& last_line) {
  TrialScript script;
  script.exit_code = 1;
  script.stderr_text =
      "Traceback (most recent call last):\n  File \"t.py\", "
      "line 1, in <module>\n" +
      last_line + "\n\n";
  return script;
}

int Count(const SweepResult& result, TrialStatus status) {
  int n = 0;
  for (const auto& t : result.trials) n += t.status == status;
  return n;
}

TEST_CASE("fail_fast: three trials failing alike end the sweep as failed",
          "[tuner][fail_fast]") {
  auto result = RunScripted(Yaml("", 1), [](const runner::TrialLaunch&, int) {
    return Crash(
        "ModuleNotFoundError: No module named "
        "'torch'");
  });
  CHECK(result.outcome == SweepOutcome::kFailed);
  CHECK(result.experiment.status == "failed");
  CHECK(result.experiment.reason ==
        "fail_fast: the first 3 trials all failed the same way (exit code 1: "
        "ModuleNotFoundError: No module named 'torch'); nothing more is "
        "launched (trial.fail_fast in docs/config.md)");
  // One slot: the third failure ends the sweep before a fourth starts.
  CHECK(Count(result, TrialStatus::kFailed) == 3);
  CHECK(result.trials.size() == 3);
}

TEST_CASE("fail_fast: different reasons, a success, or 0 let the sweep go on",
          "[tuner][fail_fast]") {
  SECTION("different last lines") {
    auto result =
        RunScripted(Yaml(""), [](const runner::TrialLaunch& launch, int) {
          return Crash("ValueError: trial " + std::to_string(launch.trial));
        });
    CHECK(result.outcome == SweepOutcome::kFinished);
    CHECK(Count(result, TrialStatus::kFailed) == 10);
  }
  SECTION("one success among the first to end") {
    auto result =
        RunScripted(Yaml("", 1), [](const runner::TrialLaunch& launch, int) {
          if (launch.trial == 2) return ToyTrainerScript(0.5, 1);
          return Crash("RuntimeError: same");
        });
    CHECK(result.outcome == SweepOutcome::kFinished);
    CHECK(result.trials.size() == 10);
  }
  SECTION("fail_fast: 0") {
    auto result = RunScripted(Yaml("trial: {fail_fast: 0}\n"),
                              [](const runner::TrialLaunch&, int) {
                                return Crash("RuntimeError: same");
                              });
    CHECK(result.outcome == SweepOutcome::kFinished);
    CHECK(Count(result, TrialStatus::kFailed) == 10);
  }
  SECTION("fail_fast: 5") {
    auto result = RunScripted(Yaml("trial: {fail_fast: 5}\n"),
                              [](const runner::TrialLaunch&, int) {
                                return Crash("RuntimeError: same");
                              });
    CHECK(result.outcome == SweepOutcome::kFailed);
    CHECK(result.experiment.reason.rfind("fail_fast: the first 5 trials", 0) ==
          0);
    // Two slots: a trial beside the fifth may have failed too.
    CHECK(Count(result, TrialStatus::kFailed) >= 5);
    CHECK(result.trials.size() <= 6);
  }
}

}  // namespace
}  // namespace tuner::testing
