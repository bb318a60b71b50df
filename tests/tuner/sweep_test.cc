// The sweep's rules on scripted trials (ScriptedRunner, a manual clock):
// the hand-computed ASHA reference, trials that crash, hang, report NaN or
// the wrong keys, retries. No process and no wait: each runs in
// milliseconds and the same on any machine. The last test spawns real
// processes: what a trial's process is given (env, dir, argv words).
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "tests/tuner/sweep_harness.h"

namespace tuner {
namespace {

using core::TrialStatus;
using testing::FlagValue;
using testing::RunScripted;
using testing::RunSweep;
using testing::ToyTrainerScript;
using testing::TrialScript;

double Quality(const runner::TrialLaunch& launch) {
  return std::stod(FlagValue(launch, "--quality"));
}

// 30 trials, one slot, so they run one after another and every rung sees
// exactly the trials before it. Trial i reports score = q_i * t / (t + 1)
// at epoch t, so ranks at a rung are the ranks of q. Rungs 1 and 3, max_t 9,
// rf 3: a trial continues iff rank <= max(1, floor(n / 3)).
//
// Hand computation (n counts the trial itself; "better" = strictly greater q):
//   1 q=.50  r1: n=1 keep 1 rank 1; r3: n=1 rank 1            -> completed
//   2 q=.60  r1: n=2 keep 1 rank 1; r3: n=2 rank 1            -> completed
//   3 q=.40  r1: n=3 keep 1 rank 3                            -> stopped at 1
//   4 q=.70  r1: n=4 rank 1; r3: n=3 rank 1                   -> completed
//   5 q=.30  r1: n=5 keep 1 rank 5                            -> stopped at 1
//   6 q=.80  r1: n=6 keep 2 rank 1; r3: n=4 rank 1            -> completed
//   7 q=.20  r1: n=7 keep 2 rank 7                            -> stopped at 1
//   8 q=.90  r1: n=8 rank 1; r3: n=5 rank 1                   -> completed
//   9 q=.10  r1: n=9 keep 3 rank 9                            -> stopped at 1
//  10 q=.55  r1: n=10 keep 3; better .6 .7 .8 .9: rank 5      -> stopped at 1
//  11 q=.65  r1: n=11 keep 3; better .7 .8 .9: rank 4         -> stopped at 1
//  12 q=.45  r1: n=12 keep 4 rank 8                           -> stopped at 1
//  13 q=.75  r1: n=13 keep 4 rank 3; r3: {.5 .6 .7 .8 .9}+.75 n=6 keep 2
//            rank 3                                           -> stopped at 3
//  14 q=.35  r1: n=14 keep 4 rank 11                          -> stopped at 1
//  15 q=.85  r1: n=15 keep 5 rank 2; r3: n=7 keep 2 rank 2    -> completed
//  16 q=.25  r1: n=16 keep 5                                  -> stopped at 1
//  17 q=.95  r1: rank 1; r3: n=8 keep 2 rank 1                -> completed
//  18 q=.15                                                   -> stopped at 1
//  19 q=.58  r1: n=19 keep 6; better .6 .7 .8 .9 .65 .75 .85 .95: rank 9
//  20 q=.62  r1: n=20 keep 6; better .7 .8 .9 .65 .75 .85 .95: rank 8
//  21 q=.42                                                   -> stopped at 1
//  22 q=.72  r1: n=22 keep 7 rank 6; r3: n=9 keep 3; better .8 .9 .75 .85 .95:
//            rank 6                                           -> stopped at 3
//  23 q=.32                                                   -> stopped at 1
//  24 q=.82  r1: n=24 keep 8 rank 4; r3: n=10 keep 3; better .9 .85 .95:
//            rank 4                                           -> stopped at 3
//  25 q=.22                                                   -> stopped at 1
//  26 q=.92  r1: rank 2; r3: n=11 keep 3 rank 2               -> completed
//  27 q=.12                                                   -> stopped at 1
//  28 q=.85  a tie with trial 15. r1: n=28 keep 9; better .9 .95 .92: rank 4;
//            r3: n=12 keep 4; better .9 .95 .92: rank 4 (the tie does not
//            count against it)                                -> completed
//  29 q=.99  r1: rank 1; r3: n=13 rank 1                      -> completed
//  30 q=.05                                                   -> stopped at 1
TEST_CASE("one-slot ASHA sweep matches the hand-computed reference",
          "[tuner][sweep]") {
  auto result = RunScripted(R"(name: reference
command: /bin/true --quality {q} --epochs {max_t}
metric: score
mode: max
time_attr: epoch
search_space:
  q: {type: grid, values: [.50, .60, .40, .70, .30, .80, .20, .90, .10, .55,
                           .65, .45, .75, .35, .85, .25, .95, .15, .58, .62,
                           .42, .72, .32, .82, .22, .92, .12, .85, .99, .05]}
searcher: {type: grid}
scheduler: {type: asha, max_t: 9, grace_period: 1, reduction_factor: 3}
devices: {kind: cpu, slots: 1}
)",
                            [](const runner::TrialLaunch& launch, int) {
                              return ToyTrainerScript(Quality(launch), 9);
                            });
  REQUIRE(result.outcome == SweepOutcome::kFinished);
  REQUIRE(result.trials.size() == 30);
  const std::set<int> completed = {1, 2, 4, 6, 8, 15, 17, 26, 28, 29};
  const std::set<int> stopped_at_3 = {13, 22, 24};
  for (const auto& trial : result.trials) {
    INFO("trial " << trial.id << ": " << trial.reason);
    int id = static_cast<int>(trial.id);
    if (completed.count(id)) {
      CHECK(trial.status == TrialStatus::kCompleted);
      CHECK(trial.last_time == 9);
    } else {
      CHECK(trial.status == TrialStatus::kStopped);
      CHECK(trial.last_time == (stopped_at_3.count(id) ? 3 : 1));
    }
  }
  // Every rung decision is stored: 30 at rung 1, 13 at rung 3.
  auto decisions =
      result.store->reports().ListDecisions(result.experiment.id).value();
  int at_rung[2] = {0, 0};
  for (const auto& d : decisions) ++at_rung[d.decision.rung];
  CHECK(at_rung[0] == 30);
  CHECK(at_rung[1] == 13);
}

// Each case misbehaves as real trainers do; the sweep records each as data
// and goes on. (Garbage on stdout is the runner's to drop: trial_runner's
// metric tests and trial_input_test.cc.)
TrialScript Misbehaving(const runner::TrialLaunch& launch) {
  std::string kind = FlagValue(launch, "--case");
  TrialScript script = ToyTrainerScript(Quality(launch), 4);
  if (kind == "crash") {  // exit 3 right after epoch 2, a Python traceback
    script.reports.resize(2);
    script.exit_code = 3;
    script.stderr_text =
        "Traceback (most recent call last):\n  File \"train.py\", line 9\n"
        "RuntimeError: simulated crash at epoch 2\n";
  } else if (kind == "hang") {  // silent after epoch 1, never exits
    script.reports.resize(1);
    script.exit_code.reset();
  } else if (kind == "extra") {  // more keys than the objective
    for (auto& report : script.reports) report.push_back({"grad_norm", 7});
  } else if (kind == "nan") {
    for (auto& report : script.reports) report[1].second = std::nan("");
  } else if (kind == "hf") {  // the Trainer's keys, not `score`
    for (auto& report : script.reports)
      report = {{"loss", 0.5}, {"learning_rate", 1e-5}, report[0]};
  }
  return script;
}

TEST_CASE(
    "crashing and hanging and misreporting trials are data and the sweep "
    "goes on",
    "[tuner][sweep]") {
  auto result = RunScripted(R"(name: misbehaving
command: /bin/true --case {case} --quality {q}
metric: score
mode: max
time_attr: epoch
search_space:
  case: {type: grid, values: [ok, crash, hang, extra, nan, hf]}
  q: {type: uniform, low: 0.5, high: 0.6}
num_trials: 6
scheduler: {type: fifo, max_t: 4}
devices: {kind: cpu, slots: 3}
trial: {timeout: 10s, stop_grace: 200ms}
)",
                            [](const runner::TrialLaunch& launch, int) {
                              return Misbehaving(launch);
                            });
  REQUIRE(result.outcome == SweepOutcome::kFinished);
  REQUIRE(result.trials.size() == 6);
  auto& t = result.trials;
  CHECK(t[0].status == TrialStatus::kCompleted);
  CHECK(t[1].status == TrialStatus::kFailed);
  CHECK(t[1].reason == "exit code 3: RuntimeError: simulated crash at epoch 2");
  CHECK(t[1].exit_code == 3);
  CHECK(t[1].last_time == 2);  // its reports were kept
  CHECK(t[2].status == TrialStatus::kFailed);
  CHECK(t[2].reason == "timed out after 10 s");
  CHECK(t[2].last_time == 1);
  CHECK(t[3].status == TrialStatus::kCompleted);
  CHECK(result.store->reports().List(t[3].id).value().size() == 4);
  // fifo runs a NaN trial to its end; NaN is no value, so best skips it.
  CHECK(t[4].status == TrialStatus::kCompleted);
  CHECK_FALSE(t[4].last_value.has_value());
  CHECK(t[5].status == TrialStatus::kFailed);  // the metric is `score`
  CHECK(t[5].reason ==
        "exited 0 without reporting 'score' with 'epoch'; its reports had: "
        "epoch, learning_rate, loss");
  // The three slots were busy together: the hang held one for its 10 s
  // while the others ran; the sweep took the hang's time, not the sum.
  CHECK(result.seconds == Approx(10.0));
}

TEST_CASE("a NaN objective stops the trial under asha", "[tuner][sweep]") {
  auto result = RunScripted(R"(name: nan
command: /bin/true --nan-at {bad}
metric: score
mode: max
time_attr: epoch
search_space:
  bad: {type: grid, values: [100, 2]}
searcher: {type: grid}
scheduler: {type: asha, max_t: 9, grace_period: 1, reduction_factor: 3}
devices: {kind: cpu, slots: 2}
)",
                            [](const runner::TrialLaunch& launch, int) {
                              TrialScript script = ToyTrainerScript(0.5, 9);
                              int bad =
                                  std::stoi(FlagValue(launch, "--nan-at"));
                              for (int e = bad; e <= 9; ++e)
                                script.reports[e - 1][1].second = std::nan("");
                              return script;
                            });
  REQUIRE(result.trials.size() == 2);
  CHECK(result.trials[0].status == TrialStatus::kCompleted);
  CHECK(result.trials[1].status == TrialStatus::kStopped);
  CHECK(result.trials[1].reason == "score is nan");
  // The NaN is never its value: the row keeps its last finite report's time.
  CHECK(result.trials[1].last_time == 1);
  CHECK(result.trials[1].last_value.has_value());
}

TEST_CASE("a time one epoch short of max_t is its own, a rounded one is max_t",
          "[tuner][sweep]") {
  auto result = RunScripted(
      R"(name: snap
command: /bin/true
metric: score
mode: max
time_attr: epoch
search_space:
  lr: {type: uniform, low: 0.1, high: 0.2}
num_trials: 1
scheduler: {type: fifo, max_t: 100}
devices: {kind: cpu, slots: 1}
)",
      [](const runner::TrialLaunch&, int) {
        TrialScript script;
        for (double epoch : {98.0, 99.0, 99.9996}) {
          script.reports.push_back({{"epoch", epoch}, {"score", epoch}});
        }
        return script;
      });
  REQUIRE(result.trials.size() == 1);
  CHECK(result.trials[0].status == TrialStatus::kCompleted);
  auto reports = result.store->reports().List(result.trials[0].id);
  REQUIRE(reports.ok());
  std::vector<double> times;
  for (const auto& report : reports.value()) times.push_back(*report.time);
  CHECK(times == std::vector<double>{98, 99, 100});
}

TEST_CASE("a time 0.01 below a rung or max_t is judged there",
          "[tuner][sweep]") {
  auto result = RunScripted(
      R"(name: snap-rungs
command: /bin/true
metric: score
mode: max
time_attr: epoch
search_space:
  lr: {type: uniform, low: 0.1, high: 0.2}
num_trials: 1
scheduler: {type: asha, max_t: 100, grace_period: 1, reduction_factor: 3}
devices: {kind: cpu, slots: 1}
)",
      [](const runner::TrialLaunch&, int) {
        TrialScript script;
        for (double epoch : {0.99, 2.99, 8.99, 26.99, 80.99, 99.99}) {
          script.reports.push_back({{"epoch", epoch}, {"score", epoch}});
        }
        return script;
      });
  REQUIRE(result.trials.size() == 1);
  CHECK(result.trials[0].status == TrialStatus::kCompleted);
  CHECK(result.trials[0].last_time == 100);
  auto reports = result.store->reports().List(result.trials[0].id);
  REQUIRE(reports.ok());
  std::vector<double> times;
  for (const auto& report : reports.value()) times.push_back(*report.time);
  CHECK(times == std::vector<double>{1, 3, 9, 27, 81, 100});
  auto decisions = result.store->reports().ListDecisions(result.experiment.id);
  REQUIRE(decisions.ok());
  std::vector<double> judged;
  for (const auto& d : decisions.value())
    judged.push_back(d.decision.milestone);
  CHECK(judged == std::vector<double>{1, 3, 9, 27, 81});
}

TEST_CASE("a crashed trial is retried up to max_failures", "[tuner][sweep]") {
  int starts = 0;
  auto result = RunScripted(R"(name: retry
command: /bin/true --crash-at {crash}
metric: score
mode: max
time_attr: epoch
search_space:
  crash: {type: grid, values: [2, 0]}
searcher: {type: grid}
scheduler: {type: fifo, max_t: 3}
trial: {max_failures: 2}
devices: {kind: cpu, slots: 1}
)",
                            [&starts](const runner::TrialLaunch& launch, int) {
                              ++starts;
                              TrialScript script = ToyTrainerScript(0.5, 3);
                              int crash =
                                  std::stoi(FlagValue(launch, "--crash-at"));
                              if (crash > 0) {  // each attempt from epoch 1
                                script.reports.resize(crash);
                                script.exit_code = 3;
                                script.stderr_text = "RuntimeError: boom\n";
                              }
                              return script;
                            });
  REQUIRE(result.trials.size() == 2);
  CHECK(starts == 4);
  CHECK(result.trials[0].status == TrialStatus::kFailed);
  CHECK(result.trials[0].attempts == 3);
  CHECK(result.trials[1].status == TrialStatus::kCompleted);
  CHECK(result.trials[1].attempts == 1);
  // Retries repeat epochs 1-2; those reports are not stored twice.
  CHECK(result.store->reports().List(result.trials[0].id).value().size() == 2);
  CHECK(std::filesystem::exists(result.dir / "trials" /
                                std::to_string(result.trials[0].id) /
                                "stderr.attempt-1.log"));
  CHECK(result.trials[0].reason == "exit code 3: RuntimeError: boom");
}

TEST_CASE(
    "a trial gets its env and dir and params.json and values stay one argv "
    "word",
    "[tuner][sweep][process]") {
  auto result = RunSweep(R"(name: env
command: TOY --quality 0.5 --epochs 1 --env-file {trial_dir}/env.txt --format {fmt}
metric: score
mode: max
search_space:
  fmt: {type: choice, values: ["json", "json; touch INJECTED"]}
searcher: {type: grid}
env: {MY_VAR: "trial-{trial_id}"}
)");
  REQUIRE(result.trials.size() == 2);
  auto dir = result.dir / "trials" / std::to_string(result.trials[0].id);
  CHECK(result.trials[0].status == TrialStatus::kCompleted);
  std::ifstream env_file(dir / "env.txt");
  std::stringstream env;
  env << env_file.rdbuf();
  std::string id = std::to_string(result.trials[0].id);
  for (std::string var :
       {"MY_VAR=trial-" + id, "TUNER_TRIAL_ID=" + id,
        "TUNER_TRIAL_DIR=" + dir.string(), std::string("PYTHONUNBUFFERED=1"),
        std::string("TUNER_EXPERIMENT=env")}) {
    CHECK(env.str().find("\n" + var + "\n") != std::string::npos);
  }
  CHECK(std::ifstream(dir / "params.json").good());
  // The second value stayed one argument: toy_trainer rejected the format.
  CHECK(result.trials[1].status == TrialStatus::kFailed);
  CHECK_FALSE(std::filesystem::exists(result.dir / "INJECTED"));
}

}  // namespace
}  // namespace tuner
