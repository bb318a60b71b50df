// Numbers that feed loops and allocations are bounded, and hostile configs
// get the one-line error instead of a crash, a hang or a silent default.
#include <string>

#include "tests/catch.h"
#include "tests/support/config_text.h"
#include "tuner/config/config_loader.h"

namespace tuner {
namespace {

using testing::ExpectError;
using testing::Load;
using testing::Replace;

// Line 6 holds the scheduler, line 7 the trial policy.
const std::string kBase = R"(name: b
command: run --lr {lr} --epochs {max_t}
metric: acc
mode: max
search_space: {lr: {type: uniform, low: 0, high: 1}}
scheduler: {type: asha, max_t: 27}
trial: {timeout: 10m}
num_trials: 8
)";

TEST_CASE("the base config of the bounds tests loads",
          "[tuner][config][bounds]") {
  auto config = Load(kBase);
  INFO(config.status().message());
  REQUIRE(config.ok());
  CHECK(config.value().trial.timeout == std::chrono::minutes(10));
}

TEST_CASE(
    "max_t, grace_period and reduction_factor are finite and make at "
    "most 64 rungs",
    "[tuner][config][bounds]") {
  // max_t: .inf would make rungs without end.
  ExpectError(Replace(kBase, "max_t: 27", "max_t: .inf"),
              "x.yaml:6: scheduler.max_t: expected a finite number, got "
              "'.inf'");
  ExpectError(Replace(kBase, "max_t: 27", "max_t: 27, grace_period: -.inf"),
              "x.yaml:6: scheduler.grace_period: expected a finite number, "
              "got '-.inf'");
  // Many rungs need a small grace_period (the default is three below max_t).
  ExpectError(Replace(kBase, "max_t: 27",
                      "max_t: 1.0e+12, grace_period: 1, reduction_factor: "
                      "1.0001"),
              "x.yaml:6: scheduler.reduction_factor: makes 276325 rungs from "
              "grace_period to max_t; at most 64 (grace_period * "
              "reduction_factor^64 must reach max_t)");
  // Past the bound on time, max_t itself is blamed, whatever else is given.
  ExpectError(Replace(kBase, "max_t: 27", "max_t: 1.0e+300"),
              "x.yaml:6: scheduler.max_t: must be <= 1e+30");
  ExpectError(
      Replace(kBase, "max_t: 27", "max_t: 1.0e+31, reduction_factor: 3"),
      "x.yaml:6: scheduler.max_t: must be <= 1e+30");
  ExpectError(Replace(kBase, "max_t: 27", "max_t: 27, brackets: 65"),
              "x.yaml:6: scheduler.brackets: must be <= 64");
  ExpectError(Replace(kBase, "type: asha, max_t: 27",
                      "type: median, max_t: 27, min_samples: 1.0e+9"),
              "x.yaml:6: scheduler.min_samples: expected a decimal integer "
              "(no sign '+', no leading zero, no exponent), got '1.0e+9'");
  ExpectError(Replace(kBase, "type: asha, max_t: 27",
                      "type: median, max_t: 27, min_samples: 1000000000"),
              "x.yaml:6: scheduler.min_samples: must be <= 1000000");
  // 64 rungs exactly is fine.
  CHECK(Load(Replace(kBase, "max_t: 27",
                     "max_t: 1.0e+30, grace_period: 1, reduction_factor: 3"))
            .ok());
}

TEST_CASE("counts that size loops are bounded", "[tuner][config][bounds]") {
  // Past int64 too, the key's own bound is named.
  ExpectError(kBase + "devices: {kind: cpu, slots: 99999999999999999999}\n",
              "x.yaml:9: devices.slots: must be <= 4096");
  ExpectError(kBase + "devices: {kind: cpu, slots: 0}\n",
              "x.yaml:9: devices.slots: must be >= 1");
  // As `tuner simulate --seed` takes it: 0 or more.
  ExpectError(Replace(kBase, "num_trials: 8",
                      "num_trials: 8\nsearcher: {type: "
                      "random, seed: -1}"),
              "x.yaml:9: searcher.seed: must be >= 0");
  ExpectError(Replace(kBase, "num_trials: 8", "num_trials: 10000001"),
              "x.yaml:8: num_trials: must be <= 10000000");
  ExpectError(Replace(kBase, "num_trials: 8", "num_trials: 0"),
              "x.yaml:8: num_trials: must be >= 1");
  ExpectError(kBase + "searcher: {type: tpe, n_candidates: 2000000000}\n",
              "x.yaml:9: searcher.n_candidates: must be <= 100000");
  ExpectError(kBase + "searcher: {type: tpe, n_startup: 4294967297}\n",
              "x.yaml:9: searcher.n_startup: must be <= 1000000");
  ExpectError(Replace(kBase, "timeout: 10m", "max_failures: 4294967296"),
              "x.yaml:7: trial.max_failures: must be <= 1000");
  ExpectError(Replace(kBase, "timeout: 10m", "max_failures: -1"),
              "x.yaml:7: trial.max_failures: must be >= 0");
  // mb << 20 overflowed int64_t.
  ExpectError(Replace(kBase, "timeout: 10m", "log_cap_mb: 9000000000000"),
              "x.yaml:7: trial.log_cap_mb: must be <= 1048576");
}

TEST_CASE("durations are between 1ms and 30 days, never silently dropped",
          "[tuner][config][bounds]") {
  for (const char* bad : {"0.0001ms", "1e300", "inf", "1e300h", "0.5ms"}) {
    INFO(bad);
    auto config =
        Load(Replace(kBase, "timeout: 10m", std::string("timeout: ") + bad));
    REQUIRE_FALSE(config.ok());
    CHECK(config.message().rfind("x.yaml:7: trial.timeout: ", 0) == 0);
  }
  ExpectError(Replace(kBase, "timeout: 10m", "timeout: 0.0001ms"),
              "x.yaml:7: trial.timeout: must be between 1ms and 30 days, got "
              "'0.0001ms'");
  ExpectError(Replace(kBase, "timeout: 10m", "stop_grace: 721h"),
              "x.yaml:7: trial.stop_grace: must be between 1ms and 30 days, "
              "got '721h'");
  ExpectError(kBase + "checkpoints: {dir: x, poll: 0.5ms}\n",
              "x.yaml:9: checkpoints.poll: must be between 1ms and 30 days, "
              "got '0.5ms'");
  auto edge = Load(Replace(kBase, "timeout: 10m", "timeout: 720h"));
  REQUIRE(edge.ok());
  CHECK(edge.value().trial.timeout == std::chrono::hours(720));
  auto small = Load(Replace(kBase, "timeout: 10m", "timeout: 1ms"));
  REQUIRE(small.ok());
  CHECK(small.value().trial.timeout == std::chrono::milliseconds(1));
}

TEST_CASE("64 two-value grid params: the grid size saturates",
          "[tuner][config][bounds]") {
  std::string space;
  std::string command = "run";
  for (int i = 0; i < 64; ++i) {
    space += "  g" + std::to_string(i) + ": {type: grid, values: [0, 1]}\n";
    command += " {g" + std::to_string(i) + "}";
  }
  std::string text = "name: g\ncommand: " + command +
                     "\nmetric: m\nmode: min\nsearch_space:\n" + space;
  // Random search: 2^64 overflowed to 0 ("the grid has only 0 combinations").
  auto random = Load(text + "num_trials: 5\n");
  INFO(random.status().message());
  REQUIRE(random.ok());
  CHECK(random.value().num_trials == 5);
  // Grid search without num_trials would run 2^64 trials.
  ExpectError(text + "searcher: {type: grid}\n",
              "x.yaml:6: num_trials: the grid has more than 10000000 "
              "combinations; give num_trials");
}

TEST_CASE("duplicate keys are refused at the second one",
          "[tuner][config][bounds]") {
  ExpectError(Replace(kBase,
                      "search_space: {lr: {type: uniform, low: 0, "
                      "high: 1}}",
                      "search_space:\n  lr: {type: uniform, low: 0, high: 1}\n"
                      "  lr: {type: uniform, low: 0, high: 2}"),
              "x.yaml:7: search_space.lr: duplicate key");
  ExpectError(kBase + "metric: loss\n", "x.yaml:9: metric: duplicate key");
  ExpectError(Replace(kBase, "max_t: 27", "max_t: 27, max_t: 9"),
              "x.yaml:6: scheduler.max_t: duplicate key");
  ExpectError(kBase + "env: {A: x, A: y}\n", "x.yaml:9: env.A: duplicate key");
}

TEST_CASE("a config that is not UTF-8 is refused at its line",
          "[tuner][config][bounds]") {
  // Its text is stored as JSON with the experiment: the encoder threw.
  ExpectError(kBase + "env: {A: \"caf\xe9\"}\n", "x.yaml:9: not UTF-8 text");
  CHECK(Load(kBase + "env: {A: \"caf\xc3\xa9\"}\n").ok());
}

TEST_CASE("a workdir that cannot be resolved is a one-line error",
          "[tuner][config][bounds]") {
  // A 300-character component aborted with an uncaught filesystem_error.
  // Resolved against an existing directory, whose child's name is too long.
  auto config = LoadConfigText(
      kBase + "workdir: " + std::string(300, 'w') + "/x\n", "x.yaml", "/", "/");
  REQUIRE_FALSE(config.ok());
  INFO(config.message());
  CHECK(config.message().rfind("x.yaml:9: workdir: cannot resolve '", 0) == 0);
  CHECK(config.message().find('\n') == std::string::npos);
}

TEST_CASE("did you mean skips names too long to be a typo",
          "[tuner][config][bounds]") {
  // The distance is quadratic in the name's length: computed for two 1 MB
  // placeholders it would hold both HTTP threads for a minute.
  std::string huge(1 << 20, 'l');
  CHECK(DidYouMean(huge, {"lr", huge}).empty());
  CHECK(DidYouMean("lrr", {"lr", huge}) == "lr");
  ExpectError(Replace(kBase, "{lr}", "{" + std::string(65, 'x') + "}"),
              "x.yaml:2: command: placeholder {" + std::string(65, 'x') +
                  "} names no parameter");
}

}  // namespace
}  // namespace tuner
