// The defaults a config gets for what it leaves out: the searcher (gp, or
// random for an empty space) and asha's and hyperband's first rung
// (max_t / reduction_factor^3, at least 1); how a stored config keeps the
// defaults it was started with; and what `tuner plan` shows of them.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "schedulers/brackets.h"
#include "tests/catch.h"
#include "tests/support/config_text.h"
#include "tests/support/tuner_cli.h"
#include "tuner/config/config_loader.h"
#include "tuner/config/stored_config.h"

namespace tuner {
namespace {

using testing::ExpectError;
using testing::Load;
using testing::Replace;

// No searcher section; the scheduler line is replaced by the cases.
const std::string kBare = R"(name: bare
command: python3 train.py --lr {lr} --epochs {max_t}
metric: acc
mode: max
time_attr: epoch
search_space:
  lr: {type: loguniform, low: 1.0e-4, high: 1.0}
num_trials: 16
scheduler: {type: asha, max_t: 52}
)";

const std::string kEmptySpace = R"(name: rows
command: python3 train.py
metric: acc
mode: max
search_space: {}
num_trials: 4
)";

ExperimentConfig Loaded(const std::string& text) {
  auto config = Load(text);
  INFO(config.status().message());
  REQUIRE(config.ok());
  return config.value();
}

ExperimentConfig WithScheduler(const std::string& scheduler) {
  return Loaded(
      Replace(kBare, "scheduler: {type: asha, max_t: 52}", scheduler));
}

TEST_CASE(
    "without a searcher type the searcher is gp, random for an empty "
    "space",
    "[tuner][config][defaults]") {
  ExperimentConfig gp = Loaded(kBare);
  CHECK(gp.searcher.type == core::SearcherType::kGp);
  CHECK_FALSE(gp.searcher_type_given);
  ExperimentConfig rows = Loaded(kEmptySpace);
  CHECK(rows.searcher.type == core::SearcherType::kRandom);
  CHECK_FALSE(rows.searcher_type_given);
  // A searcher section without a type: the same defaults.
  CHECK(Loaded(kBare + "searcher: {seed: 3}\n").searcher.type ==
        core::SearcherType::kGp);
  CHECK(Loaded(kEmptySpace + "searcher: {seed: 3}\n").searcher.type ==
        core::SearcherType::kRandom);
}

TEST_CASE("an explicit searcher type wins over the default",
          "[tuner][config][defaults]") {
  ExperimentConfig random = Loaded(kBare + "searcher: {type: random}\n");
  CHECK(random.searcher.type == core::SearcherType::kRandom);
  CHECK(random.searcher_type_given);
  CHECK(Loaded(kBare + "searcher: {type: tpe}\n").searcher.type ==
        core::SearcherType::kTpe);
  CHECK(Loaded(kBare + "searcher: {type: sobol}\n").searcher.type ==
        core::SearcherType::kSobol);
  // gp over an empty space is refused as before: nothing to model.
  ExpectError(kEmptySpace + "searcher: {type: gp}\n",
              "x.yaml:5: search_space: is empty: give parameters, or use "
              "searcher random");
}

TEST_CASE("searcher keys without a type apply to the default type",
          "[tuner][config][defaults]") {
  ExperimentConfig c =
      Loaded(kBare + "searcher: {seed: 3, n_startup: 5, max_points: 64}\n");
  CHECK(c.searcher.type == core::SearcherType::kGp);
  CHECK(c.searcher.seed == 3);
  CHECK(c.searcher.n_startup == 5);
  CHECK(c.searcher.max_points == 64);
  // A key of another type: the error it always gave.
  ExpectError(kBare + "searcher: {gamma: 0.2}\n",
              "x.yaml:10: searcher.gamma: applies to tpe only");
  ExpectError(kEmptySpace + "searcher: {n_startup: 5}\n",
              "x.yaml:7: searcher.n_startup: applies to tpe and gp only");
}

TEST_CASE("asha's default first rung is max_t / rf^3, at least 1",
          "[tuner][config][defaults]") {
  ExperimentConfig c = Loaded(kBare);
  CHECK(c.scheduler.grace_period == 52.0 / 27);
  CHECK_FALSE(c.grace_period_given);
  // Three rungs below max_t: 52/27, 52/9, 52/3.
  CHECK(schedulers::BaseMilestones(c.scheduler).size() == 3);
  ExperimentConfig rf3 =
      WithScheduler("scheduler: {type: asha, max_t: 81, reduction_factor: 3}");
  CHECK(rf3.scheduler.grace_period == 3);
  CHECK(schedulers::BaseMilestones(rf3.scheduler) ==
        std::vector<double>{3, 9, 27});
  CHECK(WithScheduler("scheduler: {type: asha, max_t: 64, reduction_factor: "
                      "2}")
            .scheduler.grace_period == 8);
  // max_t / 27 below 1: clamped to 1.
  CHECK(WithScheduler("scheduler: {type: asha, max_t: 20}")
            .scheduler.grace_period == 1);
  CHECK(WithScheduler("scheduler: {type: asha, max_t: 2}")
            .scheduler.grace_period == 1);
  // max_t 1 leaves no rung below it, with the default as with grace 1.
  ExpectError(Replace(kBare, "max_t: 52}", "max_t: 1}"),
              "x.yaml:9: scheduler.grace_period: must be below max_t (1)");
}

TEST_CASE("hyperband's default first rung is max_t / rf^3 too",
          "[tuner][config][defaults]") {
  ExperimentConfig c = WithScheduler("scheduler: {type: hyperband, max_t: 81}");
  CHECK(c.scheduler.grace_period == 3);
  CHECK(schedulers::HyperbandBrackets(c.scheduler).size() == 4);
  CHECK(WithScheduler("scheduler: {type: hyperband, max_t: 52}")
            .scheduler.grace_period == 52.0 / 27);
  CHECK(WithScheduler(
            "scheduler: {type: hyperband, max_t: 32, reduction_factor: 2}")
            .scheduler.grace_period == 4);
  CHECK(WithScheduler("scheduler: {type: hyperband, max_t: 9}")
            .scheduler.grace_period == 1);
}

TEST_CASE("an explicit grace_period wins, and median and fifo keep 1",
          "[tuner][config][defaults]") {
  ExperimentConfig c =
      WithScheduler("scheduler: {type: asha, max_t: 81, grace_period: 1}");
  CHECK(c.scheduler.grace_period == 1);
  CHECK(c.grace_period_given);
  CHECK(WithScheduler(
            "scheduler: {type: hyperband, max_t: 81, grace_period: 0.5}")
            .scheduler.grace_period == 0.5);
  CHECK(WithScheduler("scheduler: {type: median, max_t: 81}")
            .scheduler.grace_period == 1);
  CHECK(WithScheduler("scheduler: {type: fifo, max_t: 81}")
            .scheduler.grace_period == 1);
}

TEST_CASE("the default first rung follows max_t and rf given by --set",
          "[tuner][config][defaults]") {
  auto c =
      LoadConfigText(kBare, "x.yaml", "/base", "/work", {"scheduler.max_t=81"});
  REQUIRE(c.ok());
  CHECK(c.value().scheduler.grace_period == 3);
  auto rf =
      LoadConfigText(kBare, "x.yaml", "/base", "/work",
                     {"scheduler.max_t=64", "scheduler.reduction_factor=2"});
  REQUIRE(rf.ok());
  CHECK(rf.value().scheduler.grace_period == 8);
}

TEST_CASE("a stored config is read back with the defaults it got",
          "[tuner][config][defaults]") {
  ExperimentConfig c = Loaded(kBare);
  std::string stored =
      StoredConfigJson(c, kBare, "/base/x.yaml", "/base", "/base/tuner.db");
  auto again = LoadStoredConfig(stored, "");
  REQUIRE(again.ok());
  CHECK(again.value().searcher.type == core::SearcherType::kGp);
  CHECK(again.value().scheduler.grace_period == 52.0 / 27);
}

TEST_CASE(
    "a config stored before the defaults were recorded keeps random "
    "and grace 1",
    "[tuner][config][defaults]") {
  auto legacy = [](const std::string& yaml) {
    auto json = nlohmann::json::parse(StoredConfigJson(
        Loaded(yaml), yaml, "/base/x.yaml", "/base", "/base/tuner.db"));
    json.erase("defaults");
    auto config = LoadStoredConfig(json.dump(), "");
    INFO(config.status().message());
    REQUIRE(config.ok());
    return config.value();
  };
  ExperimentConfig old = legacy(kBare);
  CHECK(old.searcher.type == core::SearcherType::kRandom);
  CHECK(old.scheduler.grace_period == 1);
  ExperimentConfig seeded = legacy(kBare + "searcher: {seed: 5}\n");
  CHECK(seeded.searcher.type == core::SearcherType::kRandom);
  // What the YAML states stays as stated.
  ExperimentConfig stated =
      legacy(Replace(kBare, "max_t: 52}", "max_t: 52, grace_period: 2}") +
             "searcher: {type: tpe}\n");
  CHECK(stated.searcher.type == core::SearcherType::kTpe);
  CHECK(stated.scheduler.grace_period == 2);
  CHECK(legacy(kEmptySpace).searcher.type == core::SearcherType::kRandom);
  // Its --set overrides are applied before the old defaults are filled in.
  auto json = nlohmann::json::parse(
      WithOverrides(StoredConfigJson(Loaded(kBare), kBare, "/base/x.yaml",
                                     "/base", "/base/tuner.db"),
                    {"searcher.type=sobol", "scheduler.grace_period=4"}));
  json.erase("defaults");
  auto overridden = LoadStoredConfig(json.dump(), "");
  REQUIRE(overridden.ok());
  CHECK(overridden.value().searcher.type == core::SearcherType::kSobol);
  CHECK(overridden.value().scheduler.grace_period == 4);
}

TEST_CASE("tuner plan shows the searcher and first rung the defaults chose",
          "[tuner][cli][plan][defaults][process]") {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() /
                 ("tuner-defaults-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "bare.yaml") << kBare;
  testing::Output text = testing::RunTuner(dir, "plan bare.yaml");
  INFO(text.err);
  REQUIRE(text.code == 0);
  CHECK(text.out.find("bare: asha (stopping) scheduler, gp searcher (the "
                      "default), 16 trials\n") != std::string::npos);
  CHECK(text.out.find("rungs: grace_period 1.92593 (the default: max_t / "
                      "reduction_factor^3, at least 1), reduction_factor 3, "
                      "max_t 52\n") != std::string::npos);
  CHECK(text.out.find("epoch    1.92593") != std::string::npos);
  testing::Output json = testing::RunTuner(dir, "plan bare.yaml --format json");
  REQUIRE(json.code == 0);
  auto j = nlohmann::json::parse(json.out);
  CHECK(j["searcher"] == "gp");
  CHECK(j["grace_period"].get<double>() == 52.0 / 27);
  CHECK(j["reduction_factor"] == 3);
  CHECK(j["max_t"] == 52);
  CHECK(j["defaults"] ==
        nlohmann::json::array({"searcher.type", "scheduler.grace_period"}));
  // Stated, they are not defaults.
  testing::Output stated = testing::RunTuner(
      dir,
      "plan bare.yaml --format json --set searcher.type=random --set "
      "scheduler.grace_period=1");
  REQUIRE(stated.code == 0);
  CHECK(nlohmann::json::parse(stated.out)["defaults"].empty());
  testing::Output plain =
      testing::RunTuner(dir,
                        "plan bare.yaml --set searcher.type=random --set "
                        "scheduler.grace_period=1");
  CHECK(plain.out.find("random searcher, 16 trials\n") != std::string::npos);
  CHECK(plain.out.find("rungs: grace_period 1, reduction_factor 3, max_t "
                       "52\n") != std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tuner
