// tuner simulate's parts: the curve table, the row picker, and whole
// simulated sweeps through the real Sweep, scheduler and store. No
// process and no wall clock: every figure is exact.
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "storage/trial_store.h"
#include "tests/catch.h"
#include "tuner/config/config_loader.h"
#include "tuner/config/stored_config.h"
#include "tuner/sim/curve_table.h"
#include "tuner/sim/replay_table.h"
#include "tuner/sim/row_picker.h"
#include "tuner/sim/simulation.h"

namespace tuner::sim {
namespace {

core::Result<CurveTable> Parse(const std::string& text) {
  std::istringstream in(text);
  return ReadCurveTable(in, "t.jsonl", "epoch");
}

// Row i: loss 10 - i at every epoch of 3, each epoch `i + 1` seconds.
std::string SmallTable(int rows) {
  std::string text;
  for (int i = 0; i < rows; ++i) {
    text += "{\"id\": \"r" + std::to_string(i) +
            "\", \"config\": {\"x\": " + std::to_string(i + 1) +
            "}, \"curve\": [";
    for (int e = 1; e <= 3; ++e) {
      text += std::string(e > 1 ? ", " : "") +
              "{\"epoch\": " + std::to_string(e) +
              ", \"loss\": " + std::to_string(10 - i) +
              ", \"seconds\": " + std::to_string(i + 1) + "}";
    }
    text += "]}\n";
  }
  return text;
}

// A search space of one randint param x in [low, high].
core::SearchSpace IntX(double low, double high) {
  core::ParamSpec x;
  x.name = "x";
  x.distribution = core::Distribution::kRandInt;
  x.low = low;
  x.high = high;
  return core::SearchSpace{{x}};
}

ExperimentConfig Config(const std::string& extra) {
  std::string text =
      "name: sim\ncommand: \"true\"\nmetric: loss\nmode: min\n"
      "time_attr: epoch\n" +
      extra;
  auto config = LoadConfigText(text, "sim.yaml", "/tmp", "/tmp");
  INFO((config.ok() ? "" : config.message()));
  REQUIRE(config.ok());
  return config.value();
}

// Config() with rows drawn without replacement: `trials` of them, the
// searcher seeded with `seed`, under `scheduler` (YAML).
ExperimentConfig DrawRows(int trials, int seed, const std::string& scheduler) {
  return Config("search_space: {}\nsearcher: {type: random, seed: " +
                std::to_string(seed) + "}\nnum_trials: " +
                std::to_string(trials) + "\nscheduler: " + scheduler + "\n");
}

TEST_CASE("curve table: rows read, bad lines named by file, line and field",
          "[tuner][sim]") {
  auto table = Parse(SmallTable(2) + "\n");
  REQUIRE(table.ok());
  REQUIRE(table.value().rows.size() == 2);
  CHECK(table.value().rows[1].steps.size() == 3);
  CHECK(table.value().rows[1].steps[0].seconds == 2);
  CHECK(core::FindMetric(table.value().rows[1].steps[0].metrics, "loss") == 9);

  auto nan = Parse(
      R"({"config": {}, "curve": [{"epoch": 1, "loss": null, "seconds": 1}]})");
  REQUIRE(nan.ok());
  CHECK(std::isnan(
      *core::FindMetric(nan.value().rows[0].steps[0].metrics, "loss")));

  CHECK(Parse("{\"config\": {}, \"curve\": []}").message() ==
        "t.jsonl:1: curve: expected a non-empty list");
  CHECK(Parse(SmallTable(1) + "{nope\n").message() ==
        "t.jsonl:2: not valid JSON at column 3");
  CHECK(Parse(R"({"config": {}, "curve": [{"epoch": 1, "loss": NaN}]})")
            .message() ==
        "t.jsonl:1: not valid JSON at column 47 (NaN is not JSON: write null)");
  CHECK(Parse(R"({"config": {"x": -Infinity}, "curve": []})").message() ==
        "t.jsonl:1: not valid JSON at column 19 (Infinity is not JSON: write "
        "null)");
  // A number beyond a double, anywhere on the line, is an error, not a crash.
  CHECK(Parse(R"({"config": {}, "curve": [{"epoch": 1, "loss": -1e400}]})")
            .message() ==
        "t.jsonl:1: not valid JSON: number overflow parsing '-1e400' (beyond a "
        "double: write null, or a finite value)");
  CHECK_FALSE(Parse(R"({"config": {"lr": 1e400}, "curve": []})").ok());
  CHECK(Parse(R"({"config": {}, "curve": [{"epoch": 1, "seconds": -1}]})")
            .message() ==
        "t.jsonl:1: curve[0].seconds: expected a finite number >= 0");
  CHECK(
      Parse(
          R"({"config": {}, "curve": [{"epoch": 2, "seconds": 1}, {"epoch": 2, "seconds": 1}]})")
          .message() ==
      "t.jsonl:1: curve[1].epoch: must increase along "
      "the curve");
  CHECK(Parse(R"({"curve": [{"epoch": 1, "seconds": 1}]})").message() ==
        "t.jsonl:1: config: expected an object");
  CHECK(Parse("\n").message() == "t.jsonl: the table has no rows");
}

// Hostile tables (huge, binary, nested, linked): each is a one-line error,
// never a crash.
TEST_CASE("curve table: hostile lines and paths are refused at their line",
          "[tuner][sim]") {
  std::string good =
      R"({"config": {}, "curve": [{"epoch": 1, "loss": 1, "seconds": 1}]})";
  CHECK(Parse(good + std::string("\0junk", 5) + "\n").message() ==
        "t.jsonl:1: a NUL byte");
  // Deep nesting in config is refused before copying it could overflow the
  // stack.
  std::string deep = std::string(100000, '[') + std::string(100000, ']');
  CHECK(Parse(R"({"config": {"y": )" + deep +
              R"(}, "curve": [{"epoch": 1, "seconds": 1}]})")
            .message() == "t.jsonl:1: nested deeper than 64 levels");
  CHECK(Parse(good.substr(0, good.size() - 1) + R"(, "diverged": "yes"})")
            .message() == "t.jsonl:1: diverged: expected true or false");
  std::istringstream in(good);
  CHECK(ReadCurveTable(in, "t.jsonl", "seconds").message() ==
        "t.jsonl: time_attr seconds: in a table, seconds is each step's "
        "cost, not a time");
  CHECK(ReadCurveTableFile("/tmp", "epoch").message() ==
        "/tmp: cannot open the table: not a regular file");
  // Under time_attr report a step is its number.
  std::istringstream counted(
      R"({"config": {}, "curve": [{"loss": 3, "seconds": 1}, {"loss": 2, "seconds": 1}]})");
  auto table = ReadCurveTable(counted, "t.jsonl", "report");
  REQUIRE(table.ok());
  CHECK(core::FindMetric(table.value().rows[0].steps[1].metrics, "report") ==
        2);
}

TEST_CASE("row picker: no parameters draws every row once, else the nearest",
          "[tuner][sim]") {
  auto table = Parse(SmallTable(6));
  REQUIRE(table.ok());
  core::SearchSpace empty;
  auto picker = RowPicker::Make(table.value(), empty, 6, 7);
  REQUIRE(picker.ok());
  std::set<size_t> seen;
  for (int i = 0; i < 6; ++i) seen.insert(picker.value().Pick(i, {}).value());
  CHECK(seen.size() == 6);  // without replacement
  CHECK_FALSE(RowPicker::Make(table.value(), empty, 7, 7).ok());

  core::SearchSpace space;
  core::ParamSpec x;
  x.name = "x";
  x.distribution = core::Distribution::kLogUniform;
  x.low = 1;
  x.high = 6;
  space.params.push_back(x);
  auto nearest = RowPicker::Make(table.value(), space, 100, 7);
  REQUIRE(nearest.ok());
  // Rows hold x = 1..6; 2.4 is nearer 2 than 3 in log space (sqrt 6).
  CHECK(nearest.value().Pick(0, {{"x", 2.4}}).value() == 1);
  CHECK(nearest.value().Pick(1, {{"x", 2.5}}).value() == 2);
  space.params[0].name = "y";
  CHECK(RowPicker::Make(table.value(), space, 100, 7).message() ==
        "search_space.y: no row of t.jsonl has config.y (a number)");
  // A log-scaled parameter cannot measure distance to 0: refused, not
  // silently nearest to everything small.
  auto zero = Parse(SmallTable(2) + R"({"id": "z", "config": {"x": 0}, )" +
                    R"("curve": [{"epoch": 1, "loss": 0, "seconds": 1}]})");
  REQUIRE(zero.ok());
  space.params[0].name = "x";
  CHECK(RowPicker::Make(zero.value(), space, 100, 7).message() ==
        "t.jsonl: row z: config.x is 0, but search_space.x is log-scaled: "
        "its rows need values > 0");
}

TEST_CASE(
    "row picker: a searcher's candidates are the rows' params, each "
    "replayed once",
    "[tuner][sim]") {
  auto table = Parse(SmallTable(3) + R"({"id": "again", "config": {"x": 2}, )" +
                     R"("curve": [{"epoch": 1, "loss": 0, "seconds": 1}]})" +
                     "\n" + R"({"id": "none", "config": {}, )" +
                     R"("curve": [{"epoch": 1, "loss": 0, "seconds": 1}]})");
  REQUIRE(table.ok());
  core::SearchSpace space = IntX(1, 5);  // outlives the picker
  auto picker = RowPicker::Make(table.value(), space, 10, 7);
  REQUIRE(picker.ok());
  auto candidates = picker.value().Candidates();
  // Rows x = 1, 2, 3 and the second x = 2; the row without x is left out.
  REQUIRE(candidates.size() == 4);
  CHECK(candidates[1] == core::Params{{"x", int64_t{2}}});
  CHECK(candidates[3] == candidates[1]);
  // Equal params go to different rows, the first free one first; a trial
  // keeps its row.
  CHECK(picker.value().Pick(0, {{"x", int64_t{2}}}).value() == 1);
  CHECK(picker.value().Pick(1, {{"x", int64_t{2}}}).value() == 3);
  CHECK(picker.value().Pick(0, {{"x", int64_t{2}}}).value() == 1);
}

TEST_CASE("row picker: rows the space does not hold are not candidates",
          "[tuner][sim]") {
  std::string rows;
  for (const char* x : {"3", "1e300", "-1e300", "null", "\"4\"", "9", "4.4"})
    rows += std::string(R"({"config": {"x": )") + x +
            R"(}, "curve": [{"epoch": 1, "loss": 0, "seconds": 1}]})" + "\n";
  auto table = Parse(rows);
  REQUIRE(table.ok());
  core::SearchSpace space = IntX(1, 5);  // outlives the picker
  auto picker = RowPicker::Make(table.value(), space, 10, 7);
  REQUIRE(picker.ok());
  // 3 and 4.4 (rounded to 4): a huge value does not wrap to a negative
  // integer, and 9 lies outside [1, 5].
  CHECK(picker.value().Candidates() ==
        std::vector<core::Params>{{{"x", int64_t{3}}}, {{"x", int64_t{4}}}});
  // A table with no row inside the space is refused before any trial.
  auto config = Config(
      "search_space: {x: {type: uniform, low: 100, high: 200}}\n"
      "searcher: {type: gp, seed: 1}\nnum_trials: 3\n"
      "scheduler: {type: fifo}\n");
  auto store = storage::TrialStore::Open(":memory:").value();
  auto result = Simulate(config, "{}", table.value(), *store, {});
  CHECK(result.message() ==
        "no row of t.jsonl lies inside the search space (each needs every "
        "parameter, a number within [low, high] or one of the choices)");
}

TEST_CASE(
    "with parameters, random, tpe and gp choose among the rows not "
    "yet run",
    "[tuner][sim]") {
  auto table = Parse(SmallTable(6));  // x = 1..6
  REQUIRE(table.ok());
  for (const char* type : {"random", "tpe", "gp"}) {
    INFO(type);
    auto config = Config(
        std::string("search_space: {x: {type: uniform, low: 1, high: 6}}\n") +
        "searcher: {type: " + type + ", seed: 3" +
        (type == std::string("random") ? "" : ", n_startup: 2") + "}\n" +
        "num_trials: 9\nscheduler: {type: fifo}\n");
    auto store = storage::TrialStore::Open(":memory:").value();
    SimulationOptions options;
    options.workers = 2;
    auto result = Simulate(config, "{}", table.value(), *store, options);
    REQUIRE(result.ok());
    // Six rows, each once; then the searcher has nothing left to offer.
    CHECK(result.value().trials == 6);
    CHECK(result.value().best == 5);  // row x = 6, loss 10 - 5
    auto trials = store->trials().List(result.value().experiment);
    REQUIRE(trials.ok());
    std::set<double> xs;
    for (const auto& t : trials.value())
      xs.insert(std::get<double>(t.params.at(0).second));
    CHECK(xs == std::set<double>{1, 2, 3, 4, 5, 6});
  }
}

TEST_CASE("a metric the table never reports is refused before any trial",
          "[tuner][sim]") {
  auto table = Parse(SmallTable(2));
  REQUIRE(table.ok());
  auto config = DrawRows(2, 3, "{type: fifo}");
  config.metric = "valloss";
  auto store = storage::TrialStore::Open(":memory:").value();
  auto result = Simulate(config, "{}", table.value(), *store, {});
  CHECK(result.message() ==
        "t.jsonl: no step has the metric 'valloss' (the experiment's metric)");
  CHECK(store->experiments().List().value().empty());
}

TEST_CASE("a simulated fifo sweep: exact makespan, device time and rows",
          "[tuner][sim]") {
  auto table = Parse(SmallTable(4));  // runs of 3, 6, 9 and 12 s
  REQUIRE(table.ok());
  auto config = DrawRows(4, 3, "{type: fifo}");
  auto store = storage::TrialStore::Open(":memory:").value();
  SimulationOptions options;
  options.workers = 2;
  options.epoch = 1000;
  auto result =
      Simulate(config, "{\"simulated\": {}}", table.value(), *store, options);
  REQUIRE(result.ok());
  const SimulationResult& r = result.value();
  CHECK(r.outcome == SweepOutcome::kFinished);
  CHECK(r.trials == 4);
  CHECK(r.device_s == Approx(30));
  CHECK(r.best == 7);  // row 3, loss 10 - 3
  // Two slots over 3 + 6 + 9 + 12 s: the makespan depends on the draw
  // order, but never beats half the work nor exceeds it all.
  CHECK(r.makespan_s >= 15);
  CHECK(r.makespan_s <= 30);
  REQUIRE_FALSE(r.trajectory.empty());
  CHECK(r.trajectory.back().second == 7);
  // The store holds simulated times: every lease within [1000, 1000 +
  // makespan].
  auto leases = store->leases().List(r.experiment).value();
  REQUIRE(leases.size() == 4);
  double busy = 0;
  for (const auto& lease : leases) {
    CHECK(lease.acquired_at >= 1000);
    REQUIRE(lease.released_at);
    CHECK(*lease.released_at <= 1000 + r.makespan_s + 1e-6);
    busy += *lease.released_at - lease.acquired_at;
  }
  CHECK(busy == Approx(30));
  auto trials = store->trials().List(r.experiment).value();
  for (const auto& t : trials) CHECK(t.status == core::TrialStatus::kCompleted);
}

TEST_CASE(
    "a simulation given an end time stops before the first event "
    "past it",
    "[tuner][sim]") {
  auto table = Parse(SmallTable(4));  // runs of 3, 6, 9 and 12 s
  REQUIRE(table.ok());
  auto config = DrawRows(4, 3, "{type: fifo}");
  auto store = storage::TrialStore::Open(":memory:").value();
  SimulationOptions options;
  options.workers = 1;
  options.until_s = 10;
  auto result = Simulate(config, "{}", table.value(), *store, options).value();
  CHECK(result.outcome == SweepOutcome::kInterrupted);
  CHECK(result.makespan_s <= 10);
  CHECK(result.trials < 4);  // 30 s of runs on one worker
}

TEST_CASE("a simulated asha sweep stops the worse rows at the rungs",
          "[tuner][sim]") {
  auto table = Parse(SmallTable(9));
  REQUIRE(table.ok());
  auto config = DrawRows(
      9, 5, "{type: asha, max_t: 3, grace_period: 1, reduction_factor: 3}");
  auto store = storage::TrialStore::Open(":memory:").value();
  SimulationOptions options;
  options.workers = 1;
  auto result = Simulate(config, "{}", table.value(), *store, options);
  REQUIRE(result.ok());
  CHECK(result.value().outcome == SweepOutcome::kFinished);
  auto trials = store->trials().List(result.value().experiment).value();
  int stopped = 0;
  for (const auto& t : trials)
    stopped += t.status == core::TrialStatus::kStopped;
  CHECK(stopped > 0);
  // Less than every row run to its end (sum of 3 * (1..9) = 135 s).
  CHECK(result.value().device_s < 135);
  // The same seed gives the same simulation.
  auto again_store = storage::TrialStore::Open(":memory:").value();
  auto again = Simulate(config, "{}", table.value(), *again_store, options);
  REQUIRE(again.ok());
  CHECK(again.value().makespan_s == result.value().makespan_s);
  CHECK(again.value().trajectory == result.value().trajectory);
}

TEST_CASE("a replay reads an ended experiment and refuses a running one",
          "[tuner][sim]") {
  auto table = Parse(SmallTable(3));
  REQUIRE(table.ok());
  auto config = DrawRows(3, 3, "{type: fifo}");
  auto store = storage::TrialStore::Open(":memory:").value();
  SimulationOptions options;
  options.epoch = 0;
  auto original = Simulate(config, "{}", table.value(), *store, options);
  REQUIRE(original.ok());
  auto replayed = TableFromExperiment(*store, "sim", "epoch");
  REQUIRE(replayed.ok());
  REQUIRE(replayed.value().rows.size() == 3);
  for (const auto& row : replayed.value().rows) {
    CHECK(row.steps.size() == 3);
    CHECK_FALSE(row.truncated);
  }
  REQUIRE(store->experiments()
              .SetStatus(original.value().experiment,
                         core::ExperimentStatus::kRunning)
              .ok());
  REQUIRE(store->Commit().ok());
  CHECK(TableFromExperiment(*store, "sim", "epoch").message() ==
        "experiment 'sim' is still running (or its tuner died: resume it "
        "first); replay it when it has ended");
}

// A Hugging Face Trainer's sweep: at each epoch a training-loss line, then
// an eval line with the same epoch. Row i's eval_accuracy at epoch e is
// 0.5 + 0.1 e + 0.05 i; each epoch trains 10 s and evaluates 2 s.
std::string TrainerTable() {
  std::string text;
  for (int i = 0; i < 2; ++i) {
    text += R"({"config": {}, "curve": [)";
    for (int e = 1; e <= 3; ++e) {
      std::string epoch = std::to_string(e);
      text +=
          std::string(e > 1 ? ", " : "") +
          "{\"step\": " + std::to_string(2 * e - 1) + ", \"epoch\": " + epoch +
          ", \"loss\": " + core::FormatDouble(1.0 / e) +
          ", \"seconds\": 10}, {\"step\": " + std::to_string(2 * e) +
          ", \"epoch\": " + epoch + ", \"eval_accuracy\": " +
          core::FormatDouble(0.5 + 0.1 * e + 0.05 * i) + ", \"seconds\": 2}";
    }
    text += "]}\n";
  }
  return text;
}

ExperimentConfig TrainerConfig(const std::string& name,
                               const std::string& time_attr) {
  std::string text = "name: " + name +
                     "\ncommand: \"true\"\nmetric: eval_accuracy\nmode: "
                     "max\ntime_attr: " +
                     time_attr +
                     "\nsearch_space: {}\nsearcher: {type: random, seed: "
                     "1}\nnum_trials: 2\nscheduler: {type: fifo}\n";
  auto config = LoadConfigText(text, "t.yaml", "/tmp", "/tmp");
  REQUIRE(config.ok());
  return config.value();
}

TEST_CASE("a replay counts every report at a step: a Trainer's loss and eval",
          "[tuner][sim]") {
  std::istringstream in(TrainerTable());
  auto table = ReadCurveTable(in, "t.jsonl", "step");
  REQUIRE(table.ok());
  auto store = storage::TrialStore::Open(":memory:").value();
  SimulationOptions options;
  options.epoch = 0;
  auto original = Simulate(TrainerConfig("trainer", "step"), "{}",
                           table.value(), *store, options);
  REQUIRE(original.ok());
  REQUIRE(original.value().outcome == SweepOutcome::kFinished);

  auto replayed = TableFromExperiment(*store, "trainer", "epoch");
  REQUIRE(replayed.ok());
  REQUIRE(replayed.value().rows.size() == 2);
  for (const auto& row : replayed.value().rows) {
    REQUIRE(row.steps.size() == 3);
    for (int e = 1; e <= 3; ++e) {
      const CurveStep& step = row.steps[e - 1];
      CHECK(core::FindMetric(step.metrics, "epoch") == e);
      CHECK(core::FindMetric(step.metrics, "loss") == Approx(1.0 / e));
      CHECK(core::FindMetric(step.metrics, "eval_accuracy"));
      CHECK(core::FindMetric(step.metrics, "step") == 2 * e);  // later wins
      CHECK(step.seconds == Approx(12));
    }
    CHECK_FALSE(row.truncated);
  }
  // Under time_attr report a step is a report of the objective, the loss
  // line before it merged in.
  auto counted = TableFromExperiment(*store, "trainer", "report");
  REQUIRE(counted.ok());
  const CurveStep& first = counted.value().rows[0].steps[0];
  CHECK(counted.value().rows[0].steps.size() == 3);
  CHECK(core::FindMetric(first.metrics, "report") == 1);
  CHECK(core::FindMetric(first.metrics, "loss") == 1);

  auto what_if = Simulate(TrainerConfig("what-if", "epoch"), "{}",
                          replayed.value(), *store, options);
  REQUIRE(what_if.ok());
  CHECK(what_if.value().outcome == SweepOutcome::kFinished);
  CHECK(what_if.value().best == Approx(0.85));
  CHECK(what_if.value().makespan_s == Approx(72));
}

TEST_CASE("simulated time is bounded: a table or a sweep past it is refused",
          "[tuner][sim]") {
  CHECK(Parse(R"({"config": {}, "curve": [{"epoch": 1, "seconds": 1e308}]})")
            .message() ==
        "t.jsonl:1: curve[0].seconds: the steps' seconds add up to more than "
        "1e+09 (about 31 years), the most a simulation may take");
  CHECK(Parse(SmallTable(1) +
              R"({"config": {}, "curve": [{"epoch": 1, "seconds": 6e8}, )"
              R"({"epoch": 2, "seconds": 6e8}]})")
            .message() ==
        "t.jsonl:2: curve[1].seconds: the steps' seconds add up to more than "
        "1e+09 (about 31 years), the most a simulation may take");
  // Each run fits, but two in a row on one worker do not.
  auto table = Parse(
      R"({"config": {}, "curve": [{"epoch": 1, "loss": 1, "seconds": 9e8}]})"
      "\n"
      R"({"config": {}, "curve": [{"epoch": 1, "loss": 2, "seconds": 9e8}]})");
  REQUIRE(table.ok());
  auto store = storage::TrialStore::Open(":memory:").value();
  auto result =
      Simulate(DrawRows(2, 3, "{type: fifo}"), "{}", table.value(), *store, {});
  CHECK(result.message() ==
        "the simulation would pass 1e+09 simulated seconds (about 31 years), "
        "the most it may take: give fewer trials, more workers or shorter "
        "runs ('sim' is stored as interrupted)");
  auto stored = store->experiments().Find("sim").value();
  REQUIRE(stored);
  CHECK(stored->status == core::ExperimentStatus::kInterrupted);
}

TEST_CASE("a simulated experiment is marked and never resumed",
          "[tuner][sim]") {
  CHECK(IsSimulated(R"({"yaml": "", "simulated": {"workers": 8}})"));
  CHECK_FALSE(IsSimulated(R"({"yaml": ""})"));
  CHECK_FALSE(IsSimulated("not json"));
  CHECK(RefuseSimulated("s", R"({"simulated": {}})").message() ==
        "experiment 's' is a simulation: nothing to resume (run tuner "
        "simulate again, with another --name)");
  CHECK(RefuseSimulated("s", R"({"yaml": ""})").ok());
}

// NAS-Bench-NLP's real curves (tests/data/nasbench-nlp-wt2), asha (grace 1,
// rf 3, max_t 50), 8 workers, rows drawn without replacement: the
// trajectory reaches random search's expected best after 64 full trainings.
TEST_CASE("asha on NAS-Bench-NLP reaches random search's 64-run target",
          "[tuner][sim][data]") {
  std::string dir = std::string(TEST_DATA_DIR) + "/nasbench-nlp-wt2/";
  std::ifstream summary_file(dir + "nasbench-nlp-wt2.summary.json");
  INFO("needs the table unpacked from tests/data/nasbench-nlp-wt2");
  REQUIRE(summary_file.good());
  auto summary = nlohmann::json::parse(summary_file);
  double target = 0;
  for (const auto& pool : summary["random_search"]) {
    if (pool["pool"] != "all") continue;
    for (const auto& k : pool["expected_random_search"])
      if (k["k"] == 64) target = k["expected_best_final_val_loss"];
  }
  REQUIRE(target > 4);
  auto table = ReadCurveTableFile(dir + "nasbench-nlp-wt2.jsonl", "epoch");
  REQUIRE(table.ok());
  std::string text =
      "name: nas\ncommand: \"true\"\nmetric: val_loss\nmode: min\n"
      "time_attr: epoch\nsearch_space: {}\nsearcher: {type: random, seed: "
      "1}\nnum_trials: 345\nscheduler: {type: asha, max_t: 50, "
      "grace_period: 1, reduction_factor: 3}\n";
  auto config = LoadConfigText(text, "nas.yaml", "/tmp", "/tmp");
  REQUIRE(config.ok());
  auto store = storage::TrialStore::Open(":memory:").value();
  SimulationOptions options;
  options.workers = 8;
  auto result = Simulate(config.value(), "{}", table.value(), *store, options);
  REQUIRE(result.ok());
  CHECK(result.value().outcome == SweepOutcome::kFinished);
  REQUIRE(result.value().best);
  CHECK(*result.value().best <= target);
  double mean = summary["seconds_per_config_total"]["mean"];
  // Random search needs 64 * mean / 8 simulated seconds on average.
  CHECK(result.value().trajectory.back().first < 64 * mean / 8);
}

}  // namespace
}  // namespace tuner::sim
