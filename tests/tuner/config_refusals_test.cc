// Configs that would do something other than what they say (a parameter
// named like a placeholder, a range past what a double holds, a NUL, a
// number in another base, a second document, a file that is no file): each
// is refused with the one-line error.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/catch.h"
#include "tests/support/config_text.h"
#include "tuner/base/small_file.h"
#include "tuner/config/config_loader.h"

namespace tuner {
namespace {

using testing::ExpectError;
using testing::Load;
using testing::Replace;

// Line 5 holds the search space.
const std::string kBase = R"(name: r
command: run --lr {lr}
metric: acc
mode: max
search_space: {lr: {type: uniform, low: 0, high: 1}}
num_trials: 8
)";

TEST_CASE("a parameter may not take a built-in placeholder's name",
          "[tuner][config]") {
  // Accepted, the trial would get the built-in value while params.json and
  // `best --format args` show the sampled one.
  for (std::string name : {"max_t", "trial_id", "trial_dir", "devices",
                           "num_devices", "master_port"}) {
    INFO(name);
    ExpectError(Replace(kBase, "{lr: {type: uniform",
                        "{" + name +
                            ": {type: "
                            "uniform"),
                "x.yaml:5: search_space." + name + ": {" + name +
                    "} is a built-in placeholder the tuner fills; give the "
                    "parameter another name");
  }
}

TEST_CASE("a range must not overflow, a quniform not exceed 2^53 steps",
          "[tuner][config]") {
  // uniform over [-1e308, 1e308] would sample inf (stored as null).
  ExpectError(
      Replace(kBase, "low: 0, high: 1", "low: -1.0e+308, high: 1.0e+308"),
      "x.yaml:5: search_space.lr.high: uniform needs high - low to "
      "be a finite number");
  ExpectError(Replace(kBase, "type: uniform, low: 0, high: 1",
                      "type: quniform, low: 0, high: 1.0e+300, q: 1.0e-300"),
              "x.yaml:5: search_space.lr.q: quniform makes at most 2^53 "
              "steps: (high - low) / q is inf");
  CHECK(
      Load(Replace(kBase, "low: 0, high: 1", "low: -1.0e+300, high: 1.0e+300"))
          .ok());
}

TEST_CASE("no text may hold a NUL, no env name an '='", "[tuner][config]") {
  // "a\0b" would reach the trial as "a" while the database keeps "a\0b".
  ExpectError(Replace(kBase, "{lr: {type: uniform, low: 0, high: 1}}",
                      "{lr: {type: choice, values: [\"a\\0b\"]}}"),
              "x.yaml:5: search_space.lr.values: holds a NUL character, "
              "which no argument can carry");
  ExpectError(kBase + "env: {A: \"x\\0y\"}\n",
              "x.yaml:7: env.A: holds a NUL character, which no argument "
              "can carry");
  // Accepted, the trial would get A=B=x.
  ExpectError(kBase + "env: {\"A=B\": x}\n",
              "x.yaml:7: env.A=B: environment variable names use letters, "
              "digits and '_'");
}

TEST_CASE("integer ranges stay where doubles are exact", "[tuner][config]") {
  // randint over [2^63 - 807, 2^63 - 1] would sample -2^63; 2^53 + 1 would
  // become 2^53.
  ExpectError(Replace(kBase, "type: uniform, low: 0, high: 1",
                      "type: randint, low: 9223372036854775000, high: "
                      "9223372036854775807"),
              "x.yaml:5: search_space.lr.low: randint bounds are within "
              "+-2^53 (9007199254740992)");
  ExpectError(Replace(kBase, "type: uniform, low: 0, high: 1",
                      "type: lograndint, low: 1, high: 9007199254740993"),
              "x.yaml:5: search_space.lr.high: lograndint bounds are within "
              "+-2^53 (9007199254740992)");
  CHECK(Load(Replace(kBase, "type: uniform, low: 0, high: 1",
                     "type: randint, low: -9007199254740992, high: "
                     "9007199254740992"))
            .ok());
}

TEST_CASE("raw control bytes and control characters in values are refused",
          "[tuner][config]") {
  // yaml-cpp reads a raw NUL in a plain scalar as an escape: "\0e" would
  // become ESC, past the NUL check.
  ExpectError(kBase + "workdir: /tmp" + std::string(1, '\0') + "e\n",
              "x.yaml:7: a control character (write it as an escape in a "
              "quoted string)");
  ExpectError(kBase + "env: {A: \"x\x1by\"}\n",
              "x.yaml:7: a control character (write it as an escape in a "
              "quoted string)");
  CHECK(Load(kBase + "env: {A: \"tab\there\"}\n").ok());
  // Escaped in a quoted string, a control character is no param value.
  ExpectError(Replace(kBase, "{lr: {type: uniform, low: 0, high: 1}}",
                      "{lr: {type: choice, values: [\"\\e[31mRED\\a\"]}}"),
              "x.yaml:5: search_space.lr.values: a value holds a control "
              "character");
  // .inf would reach the command as "inf" and be stored as null.
  ExpectError(Replace(kBase, "{lr: {type: uniform, low: 0, high: 1}}",
                      "{lr: {type: choice, values: [1, .inf]}}"),
              "x.yaml:5: search_space.lr.values: values must be finite");
}

TEST_CASE("a config is one YAML document", "[tuner][config]") {
  // A second document would be ignored without a word.
  ExpectError(kBase + "---\nname: other\n",
              "x.yaml:7: a second YAML document ('---'): a config is one "
              "document");
  CHECK(Load("---\n" + kBase).ok());
  // yaml-cpp 0.7's LoadAll loops without end on these, a null document a
  // turn, until memory runs out: each is an error, at once.
  for (std::string text : std::vector<std::string>{
           ",", kBase + ",\n", kBase + "---\n,\n",
           "- macro: x\n  condition:\n    (a in (\n\"b\",\n"
           "    \"c\"\n    )  )  \n    )"}) {
    INFO(text);
    CHECK_FALSE(Load(text).ok());
  }
}

TEST_CASE("a config file is a regular file of at most 1 MiB",
          "[tuner][config]") {
  // Read whole, `tuner plan /dev/zero` would grow without end and a FIFO
  // block.
  auto zero = LoadConfigFile("/dev/zero", "/");
  REQUIRE_FALSE(zero.ok());
  CHECK(zero.message() == "/dev/zero: not a regular file");
  auto dir = std::filesystem::temp_directory_path() /
             ("tuner-config-file-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::string fifo = (dir / "fifo.yaml").string();
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  auto piped = LoadConfigFile(fifo, "/");  // returns: no writer is awaited
  REQUIRE_FALSE(piped.ok());
  CHECK(piped.message() == fifo + ": not a regular file");
  std::string big = (dir / "big.yaml").string();
  std::ofstream(big) << kBase << "# " << std::string(kMaxConfigBytes, 'x')
                     << "\n";
  auto large = LoadConfigFile(big, "/");
  REQUIRE_FALSE(large.ok());
  CHECK(large.message() == big + ": larger than 1048576 bytes");
  std::string fine = (dir / "fine.yaml").string();
  std::ofstream(fine) << kBase;
  CHECK(LoadConfigFile(fine, "/").ok());
  std::filesystem::remove_all(dir);
}

TEST_CASE("run and submit refuse a workdir that is not a directory",
          "[tuner][config]") {
  // Accepted, every trial would fail with "cannot execute '/bin/echo'".
  auto config = Load(kBase + "workdir: /nonexistent-tuner-dir\n");
  REQUIRE(config.ok());  // a stored config still loads
  auto checked = CheckWorkdir(config.value(), "x.yaml");
  REQUIRE_FALSE(checked.ok());
  CHECK(checked.message() ==
        "x.yaml: workdir: '/nonexistent-tuner-dir' is not a directory "
        "(trials run there)");
  auto here = Load(kBase + "workdir: /\n");
  REQUIRE(here.ok());
  CHECK(CheckWorkdir(here.value(), "x.yaml").ok());
}

}  // namespace
}  // namespace tuner

namespace tuner {
namespace {

using testing::ExpectError;
using testing::Load;
using testing::Replace;

const std::string kPlain = R"(name: r
command: run --lr {lr} --layers {layers}
metric: acc
mode: max
search_space: {lr: {type: uniform, low: 0, high: 1}, layers: {type: randint, low: 1, high: 4}}
num_trials: 8
)";

// The number rule's one wording (core::kDecimalIntegerRule).
const std::string kIntRule =
    "expected a decimal integer (no sign '+', no leading zero, no exponent)";

TEST_CASE("integers are decimal: a leading zero, 0x or '+' is refused",
          "[tuner][config]") {
  // YAML 1.1 reads 010 as 8 and 0x10 as 16.
  ExpectError(Replace(kPlain, "num_trials: 8", "num_trials: 010"),
              "x.yaml:6: num_trials: " + kIntRule + ", got '010'");
  ExpectError(Replace(kPlain, "num_trials: 8", "num_trials: 0x10"),
              "x.yaml:6: num_trials: " + kIntRule + ", got '0x10'");
  ExpectError(Replace(kPlain, "high: 4", "high: 04"),
              "x.yaml:5: search_space.layers.high: " + kIntRule + ", got '04'");
  ExpectError(Replace(kPlain, "num_trials: 8", "num_trials: +5"),
              "x.yaml:6: num_trials: " + kIntRule + ", got '+5'");
  ExpectError(Replace(kPlain, "num_trials: 8", "num_trials: 1e3"),
              "x.yaml:6: num_trials: " + kIntRule + ", got '1e3'");
  // An integer past int64_t's range is one: it is out of range.
  ExpectError(
      Replace(kPlain, "num_trials: 8", "num_trials: 9223372036854775808"),
      "x.yaml:6: num_trials: must be <= 10000000");
  ExpectError(Replace(kPlain, "high: 4", "high: 99999999999999999999"),
              "x.yaml:5: search_space.layers.high: must be <= "
              "9223372036854775807");
  ExpectError(
      Replace(kPlain, "low: 1, high: 4", "low: -99999999999999999999, high: 4"),
      "x.yaml:5: search_space.layers.low: must be >= "
      "-9223372036854775808");
  auto ten = Load(Replace(kPlain, "num_trials: 8", "num_trials: 10"));
  REQUIRE(ten.ok());
  CHECK(ten.value().num_trials == 10);
  auto zero = Load(Replace(kPlain, "low: 1, high: 4", "low: -3, high: 0"));
  REQUIRE(zero.ok());
}

TEST_CASE("every number is decimal: a leading zero or 0x is refused",
          "[tuner][config]") {
  // Each would be read as 10 where YAML 1.1 reads 010 as 8.
  const std::string rule =
      "expected a decimal number (no sign '+', no leading zero)";
  ExpectError(Replace(kPlain, "num_trials: 8",
                      "num_trials: 8\nscheduler: {type: fifo, max_t: 010}"),
              "x.yaml:7: scheduler.max_t: " + rule + ", got '010'");
  ExpectError(Replace(kPlain, "num_trials: 8",
                      "num_trials: 8\nscheduler: {type: fifo, max_t: 0x10}"),
              "x.yaml:7: scheduler.max_t: expected a number, got '0x10'");
  ExpectError(Replace(kPlain, "low: 0, high: 1", "low: 00.5, high: 1"),
              "x.yaml:5: search_space.lr.low: " + rule + ", got '00.5'");
  ExpectError(Replace(kPlain, "low: 0, high: 1", "low: +0.5, high: 1"),
              "x.yaml:5: search_space.lr.low: " + rule + ", got '+0.5'");
  ExpectError(Replace(kPlain, "type: uniform, low: 0, high: 1",
                      "type: quniform, low: 0, high: 1, q: 010"),
              "x.yaml:5: search_space.lr.q: " + rule + ", got '010'");
  ExpectError(
      Replace(kPlain, "num_trials: 8", "num_trials: 8\ntrial: {timeout: 010}"),
      "x.yaml:7: trial.timeout: expected a duration such as 90, 90s, 10m or "
      "2h, got '010'");
  ExpectError(
      Replace(kPlain, "num_trials: 8", "num_trials: 8\ntrial: {timeout: 010s}"),
      "x.yaml:7: trial.timeout: expected a duration such as 90, 90s, "
      "10m or 2h, got '010s'");
  ExpectError(
      Replace(kPlain, "num_trials: 8", "num_trials: 8\ntrial: {timeout: +5s}"),
      "x.yaml:7: trial.timeout: expected a duration such as 90, 90s, "
      "10m or 2h, got '+5s'");
  auto decimal =
      Load(Replace(Replace(kPlain, "low: 0, high: 1", "low: 0.05, high: .5e1"),
                   "num_trials: 8", "num_trials: 8\npriority: 1e1"));
  REQUIRE(decimal.ok());
  CHECK(decimal.value().space.params[0].low == 0.05);
  CHECK(decimal.value().space.params[0].high == 5);
  CHECK(decimal.value().priority == 10);
}

TEST_CASE("a choice value with a leading zero is text, as written",
          "[tuner][config]") {
  // Read as numbers, a grid of folds 007, 010 would reach the trial as 7
  // and 10.
  auto config =
      Load(Replace(kPlain, "{type: uniform, low: 0, high: 1}",
                   "{type: grid, values: [007, 010, 0x1f, 10, 2.5]}"));
  REQUIRE(config.ok());
  const auto& values = config.value().space.params[0].values;
  REQUIRE(values.size() == 5);
  CHECK(values[0] == core::ParamValue(std::string("007")));
  CHECK(values[1] == core::ParamValue(std::string("010")));
  CHECK(values[2] == core::ParamValue(std::string("0x1f")));
  CHECK(values[3] == core::ParamValue(int64_t{10}));
  CHECK(values[4] == core::ParamValue(2.5));
}

TEST_CASE("an experiment name may not start with '-'", "[tuner][config]") {
  for (std::string name : {"--help", "-x"}) {
    INFO(name);
    ExpectError(Replace(kPlain, "name: r", "name: " + name),
                "x.yaml:1: name: use letters, digits, '.', '_' and '-', not "
                "starting with '.' or '-' (at most 128)");
  }
  CHECK(Load(Replace(kPlain, "name: r", "name: r-1")).ok());
}

TEST_CASE("the metric and time_attr hold no control character",
          "[tuner][config]") {
  // Escaped in YAML, they are read as raw ESC and BEL bytes.
  ExpectError(
      Replace(kPlain, "metric: acc", R"(metric: "acc\e]0;HACKED\a\e[31m")"),
      "x.yaml:3: metric: the name holds a control character");
  ExpectError(Replace(kPlain, "mode: max", "mode: max\ntime_attr: \"ep\\x9b\""),
              "x.yaml:5: time_attr: the name holds a control character");
  ExpectError(Replace(kPlain, "metric: acc", R"(metric: "acc\u202e")"),
              "x.yaml:3: metric: the name holds a control character");
  CHECK(Load(Replace(kPlain, "metric: acc", R"(metric: "caf\u00e9")")).ok());
}

}  // namespace
}  // namespace tuner
