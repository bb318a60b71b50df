// The defaults a config gets for what it leaves out: the searcher (gp, or
// random for an empty space).
#include <string>

#include "tests/catch.h"
#include "tests/support/config_text.h"
#include "tuner/config/config_loader.h"

namespace tuner {
namespace {

using testing::ExpectError;
using testing::Load;
using testing::Replace;

// No searcher section.
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

}  // namespace
}  // namespace tuner
