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
  CHECK(result.experiment.status == core::ExperimentStatus::kFailed);
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

TEST_CASE("fail_fast: a resumed sweep is judged by the trials it sees end",
          "[tuner][fail_fast]") {
  std::string yaml = Yaml("", 1);
  yaml.replace(yaml.find("num_trials: 10"), 14, "num_trials: 2");
  bool broken = false;
  ScriptFor script = [&broken](const runner::TrialLaunch&, int) {
    if (broken) return Crash("ModuleNotFoundError: No module named 'torch'");
    TrialScript fine;
    fine.reports.push_back({{"epoch", 1}, {"score", 0.5}});
    return fine;
  };
  auto first = RunScripted(yaml, script);
  REQUIRE(first.outcome == SweepOutcome::kFinished);
  REQUIRE(first.store->experiments()
              .ExtendTrialBudget(first.experiment.id, 2, 8, 100)
              .ok());
  REQUIRE(first.store->Commit().ok());
  broken = true;  // the environment broke before the resume

  auto config = LoadConfigText(yaml, "test.yaml", first.dir, first.dir);
  REQUIRE(config.ok());
  runner::DevicePool pool = TestPool(config.value());
  boost::asio::io_context io;
  ManualClock clock;
  NullProgress progress;
  Sweep::Options options = BaseOptions(config.value(), first, pool);
  options.clock = &clock;
  options.make_runner = MakeScriptedRunner(clock, script);
  Sweep sweep(io, config.value(), *first.store, progress, options);
  REQUIRE(sweep.Resume(first.experiment).ok());
  Drive(io, clock, [&] { return sweep.outcome() == SweepOutcome::kRunning; });
  CHECK(sweep.outcome() == SweepOutcome::kFailed);
  CHECK(sweep.error().rfind("fail_fast: the first 3 trials all failed", 0) ==
        0);
  // Two trials completed before; one slot: the third failure ends it.
  auto trials = first.store->trials().List(first.experiment.id).value();
  CHECK(trials.size() == 5);
}

}  // namespace
}  // namespace tuner::testing
