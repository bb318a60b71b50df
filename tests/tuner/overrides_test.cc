// `tuner run --set KEY=VALUE` and `--name`: overrides of a config's keys,
// their errors, and the stored config that a resume loads again.
#include <string>
#include <vector>

#include "tests/catch.h"
#include "tuner/config/config_loader.h"
#include "tuner/config/config_overrides.h"
#include "tuner/config/config_values.h"
#include "tuner/config/stored_config.h"

namespace tuner {
namespace {

const std::string kConfig = R"(name: base
command: python3 train.py --lr {lr}
metric: acc
mode: max
time_attr: epoch
search_space:
  lr: {type: uniform, low: 0.001, high: 0.5}
num_trials: 8
scheduler: {type: asha, max_t: 9, grace_period: 1}
)";

core::Result<ExperimentConfig> LoadWith(std::vector<std::string> overrides) {
  return LoadConfigText(kConfig, "x.yaml", "/base", "/work", overrides);
}

std::string ErrorWith(std::vector<std::string> overrides) {
  auto config = LoadWith(std::move(overrides));
  REQUIRE_FALSE(config.ok());
  CHECK(config.message().find('\n') == std::string::npos);
  return config.message();
}

TEST_CASE("overrides: --set changes dotted keys, values read as YAML, in order",
          "[tuner][config][overrides]") {
  auto config = LoadWith({"scheduler.max_t=20", "search_space.lr.high=0.1",
                          "num_trials=3", "num_trials=4",
                          "command=python3 other.py --lr {lr}",
                          "trial.timeout=10m", "name=renamed"});
  INFO(config.status().message());
  REQUIRE(config.ok());
  const ExperimentConfig& c = config.value();
  CHECK(c.scheduler.max_t == 20);
  CHECK(c.space.params[0].high == 0.1);
  CHECK(c.num_trials == 4);  // the last one wins
  CHECK(c.command == "python3 other.py --lr {lr}");
  CHECK(c.trial.timeout == std::chrono::minutes(10));
  CHECK(c.name == "renamed");
}

TEST_CASE(
    "overrides: --set of an unknown key or a bad value names the override",
    "[tuner][config][overrides]") {
  CHECK(ErrorWith({"scheduler.max_tt=20"}) ==
        "--set scheduler.max_tt=20: scheduler.max_tt: unknown key (did you "
        "mean 'max_t'?)");
  CHECK(ErrorWith({"num_trials=many"})
            .rfind("--set num_trials=many: "
                   "num_trials: ",
                   0) == 0);
  // Numbers follow the file's rule, and its words.
  CHECK(ErrorWith({"num_trials=+5"}) ==
        "--set num_trials=+5: num_trials: expected a decimal integer (no sign "
        "'+', no leading zero, no exponent), got '+5'");
  CHECK(ErrorWith({"num_trials=9223372036854775808"}) ==
        "--set num_trials=9223372036854775808: num_trials: must be <= "
        "10000000");
  CHECK(ErrorWith({"scheduler.max_t=+5"}) ==
        "--set scheduler.max_t=+5: scheduler.max_t: expected a decimal number "
        "(no sign '+', no leading zero), got '+5'");
  CHECK(ErrorWith({"nosuch.key=1"})
            .rfind("--set nosuch.key=1: nosuch: "
                   "unknown key",
                   0) == 0);
  CHECK(ErrorWith({"scheduler.max_t.x=1"}) ==
        "--set scheduler.max_t.x=1: scheduler.max_t is not a mapping");
  CHECK(ErrorWith({"max_t"}) ==
        "--set max_t: expected KEY=VALUE (e.g. scheduler.max_t=20)");
  CHECK(ErrorWith({"a..b=1"}) == "--set a..b=1: a key part is empty");
  CHECK(ErrorWith({"name=[unclosed"})
            .rfind("--set name=[unclosed: invalid "
                   "YAML value",
                   0) == 0);
  CHECK(ErrorWith({std::string("name=a\x1b[2Jb")}).find("control") !=
        std::string::npos);
  // An error elsewhere in the file still names its line.
  auto broken = LoadConfigText(kConfig + "bogus: 1\n", "x.yaml", "/base",
                               "/work", {"num_trials=3"});
  CHECK(broken.message() == "x.yaml:10: bogus: unknown key");
}

TEST_CASE("overrides: --name sets the name as text and its error names --name",
          "[tuner][config][overrides]") {
  CHECK(ErrorWith({"num_trials=3", config::NameOverride("-x")}) ==
        std::string("--name -x: name: ") + config::kNameRule);
  // The value is text, not YAML: a colon or a YAML null stays a name.
  CHECK(ErrorWith({config::NameOverride("a: b")}) ==
        std::string("--name a: b: name: ") + config::kNameRule);
  auto config = LoadWith({"name=other", config::NameOverride("null")});
  REQUIRE(config.ok());
  CHECK(config.value().name == "null");
  // --set name=... still names --set.
  CHECK(ErrorWith({"name=-x"}) ==
        std::string("--set name=-x: name: ") + config::kNameRule);
}

TEST_CASE("the stored config keeps the overrides, so a resume reruns them",
          "[tuner][config][overrides]") {
  std::vector<std::string> overrides = {"scheduler.max_t=20", "name=other"};
  auto config = LoadWith(overrides);
  REQUIRE(config.ok());
  std::string stored =
      WithOverrides(StoredConfigJson(config.value(), kConfig, "/base/x.yaml",
                                     "/base", "/tmp/tuner.db"),
                    overrides);
  auto again = LoadStoredConfig(stored, "");
  INFO(again.status().message());
  REQUIRE(again.ok());
  CHECK(again.value().scheduler.max_t == 20);
  CHECK(again.value().name == "other");
  CHECK(WithOverrides("{}", {}) == "{}");
}

TEST_CASE("tuner submit sends the config with its overrides, checked here",
          "[tuner][config][overrides]") {
  auto text = OverriddenConfigText(kConfig, "x.yaml", "/base",
                                   {"num_trials=3", "name=n2"});
  INFO(text.status().message());
  REQUIRE(text.ok());
  auto sent = LoadConfigText(text.value(), "x.yaml", "/base", "/base");
  REQUIRE(sent.ok());
  CHECK(sent.value().num_trials == 3);
  CHECK(sent.value().name == "n2");
  CHECK(sent.value().scheduler.max_t == 9);
  CHECK(OverriddenConfigText(kConfig, "x.yaml", "/base", {}).value() ==
        kConfig);
  CHECK(
      OverriddenConfigText(kConfig, "x.yaml", "/base", {"bogus=1"}).message() ==
      "--set bogus=1: bogus: unknown key");
}

}  // namespace
}  // namespace tuner
