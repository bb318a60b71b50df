// The dashboard's incremental reads, through Api::Handle with no sockets:
// `?since=` on /curves and /leases returns only what was written or
// changed after that time, `?metric=` plots another stored metric, and bad
// values are refused. The store writes on a clock the test sets.

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "tests/catch.h"
#include "tests/server/api_harness.h"
#include "tests/server/views_experiment.h"
#include "tuner/server/api.h"
#include "tuner/server/store_pool.h"

namespace tuner::server {
namespace {

using nlohmann::json;

struct Fixture {
  explicit Fixture(int64_t overview_above = Api::Options().overview_above) {
    std::string db = dir.db();
    auto opened = storage::TrialStore::Open(db);
    REQUIRE(opened.ok());
    writer = std::move(opened.value());
    writer->SetTimeSource([this] { return now; });
    experiment = testing::AddViewsExperiment(*writer, "views");
    stores.emplace(db);
    Api::Options options;
    options.db_path = db;
    options.overview_above = overview_above;
    api.emplace(*stores, bus, control, options);
  }
  Response Get(const std::string& target) {
    return testing::GetNow(*api, target);
  }

  json GetJson(const std::string& target) {
    Response r = Get(target);
    INFO(target << ": " << r.body);
    REQUIRE(r.status == 200);
    return json::parse(r.body);
  }

  double now = 1000;
  testing::ScratchDir dir{"tuner-since"};
  std::unique_ptr<storage::TrialStore> writer;
  storage::ExperimentId experiment = 0;
  EventBus bus;
  testing::FakeControl control;
  std::optional<StorePool> stores;
  std::optional<Api> api;
};

size_t PointsOf(const json& curves) { return curves["points"]["trial"].size(); }

// Report i of an answer's point columns.
json PointAt(const json& curves, size_t i) {
  const json& c = curves["points"];
  return {c["trial"][i], c["time"][i], c["value"][i], c["reported_at"][i],
          c["seq"][i]};
}

// A Trainer prints a loss line, then an eval line with other keys: the
// page offers every key the trial reported, not only its first report's.
TEST_CASE("curves offer every metric a trial reported",
          "[server][api][dashboard]") {
  Fixture f;
  f.now = 2000;
  auto trial = f.writer->trials().Add(f.experiment, 40, {{"lr", 1e-3}});
  REQUIRE(trial.ok());
  REQUIRE(f.writer->trials().MarkRunning(trial.value()).ok());
  REQUIRE(f.writer->reports()
              .Append({trial.value(),
                       1,
                       1.0,
                       std::nullopt,
                       {{"loss", 0.7}, {"epoch", 1.0}}},
                      core::Mode::kMax)
              .ok());
  REQUIRE(
      f.writer->reports()
          .Append(
              {trial.value(), 2, 1.0, 0.9, {{"eval_f1", 0.9}, {"epoch", 1.0}}},
              core::Mode::kMax)
          .ok());
  REQUIRE(f.writer->Commit().ok());
  json all = f.GetJson("/api/experiments/views/curves");
  CHECK(all["metrics"] == json({"loss", "epoch", "eval_f1"}));
}

TEST_CASE("curves ?since= returns only the trials and reports after it",
          "[server][api][dashboard]") {
  Fixture f;
  json all = f.GetJson("/api/experiments/views/curves");
  CHECK(all["trials"]["id"].size() == testing::kViewsTrials);
  // 16 trials stop at epoch 1, 12 at epoch 2, 12 complete at epoch 4: a
  // first read of so few sends every report.
  CHECK(all["overview"] == false);
  CHECK(PointsOf(all) == 16 + 12 * 2 + 12 * 4);
  CHECK(all["decisions"]["trial"].size() == 40 + 24);
  CHECK(all["metrics"] == json({"epoch", "score", "loss", "acc"}));
  CHECK(all["cursor"].is_number());
  // The points are columns: trial, time, value, reported_at, seq.
  CHECK(PointAt(all, 0) ==
        json({1, 1.0, testing::ViewsScore(testing::ViewsLr(0), 1), 1000.0, 1}));

  json none = f.GetJson("/api/experiments/views/curves?since=1500");
  CHECK(none["overview"] == false);
  CHECK(none["trials"]["id"].empty());
  CHECK(none["decisions"]["trial"].empty());
  CHECK_FALSE(none.contains("metrics"));

  // A new trial reports at 2000: only it comes back.
  f.now = 2000;
  auto trial = f.writer->trials().Add(f.experiment, 40,
                                      {{"lr", 1e-3}, {"batch", int64_t{16}}});
  REQUIRE(trial.ok());
  REQUIRE(f.writer->trials().MarkRunning(trial.value()).ok());
  for (int epoch = 1; epoch <= 2; ++epoch) {
    REQUIRE(f.writer->reports()
                .Append({trial.value(), epoch, epoch, 0.5, {{"score", 0.5}}},
                        core::Mode::kMax)
                .ok());
  }
  REQUIRE(f.writer->Commit().ok());
  json fresh = f.GetJson("/api/experiments/views/curves?since=1500");
  REQUIRE(fresh["trials"]["id"].size() == 1);
  CHECK(fresh["trials"]["id"][0] == trial.value());
  CHECK(fresh["trials"]["status"][0] == "running");
  CHECK(fresh["trials"]["params"]["lr"][0] == 1e-3);
  CHECK(fresh["trials"]["params"]["batch"][0] == 16);
  REQUIRE(PointsOf(fresh) == 2);
  CHECK(PointAt(fresh, 0) == json({trial.value(), 1.0, 0.5, 2000.0, 1}));
  CHECK(PointAt(fresh, 1) == json({trial.value(), 2.0, 0.5, 2000.0, 2}));
  // A running trial is always sent (its row may change), its old reports
  // are not.
  json later = f.GetJson("/api/experiments/views/curves?since=2500");
  REQUIRE(later["trials"]["id"].size() == 1);
  CHECK(PointsOf(later) == 0);
}

// A Hugging Face Trainer's trial: at each epoch a training-loss line
// (without the objective), then an eval line with it; rung decisions at
// `milestones`. Returns its id.
core::TrialId AddTrainerTrial(Fixture& f, int epochs,
                              const std::vector<double>& milestones) {
  auto trial = f.writer->trials().Add(f.experiment, 40, {{"lr", 1e-3}});
  REQUIRE(trial.ok());
  REQUIRE(f.writer->trials().MarkRunning(trial.value()).ok());
  for (int epoch = 1; epoch <= epochs; ++epoch) {
    double e = epoch;
    REQUIRE(f.writer->reports()
                .Append({trial.value(),
                         2 * epoch - 1,
                         e,
                         std::nullopt,
                         {{"loss", 1 / e}, {"epoch", e}}},
                        core::Mode::kMax)
                .ok());
    REQUIRE(f.writer->reports()
                .Append({trial.value(),
                         2 * epoch,
                         e,
                         0.5 + e / 1000,
                         {{"score", 0.5 + e / 1000}, {"epoch", e}}},
                        core::Mode::kMax)
                .ok());
  }
  int rung = 0;
  for (double milestone : milestones) {
    core::RungDecision d;
    d.rung = rung++;
    d.milestone = milestone;
    d.value = 0.5 + milestone / 1000;
    d.verdict = core::RungVerdict::kContinue;
    REQUIRE(f.writer->reports().AppendDecision({trial.value(), d}).ok());
  }
  REQUIRE(f.writer->Commit().ok());
  return trial.value();
}

// The (time, seq) of trial `id`'s points in an answer of /curves.
std::vector<std::pair<double, int64_t>> PointsOfTrial(const json& curves,
                                                      core::TrialId id) {
  std::vector<std::pair<double, int64_t>> out;
  const json& c = curves["points"];
  for (size_t i = 0; i < c["trial"].size(); ++i) {
    if (c["trial"][i] == id) out.emplace_back(c["time"][i], c["seq"][i]);
  }
  return out;
}

TEST_CASE("the first curves read of a small experiment sends every report",
          "[server][api][dashboard]") {
  Fixture f;
  f.now = 2000;
  core::TrialId trial = AddTrainerTrial(f, 9, {1, 3, 9});
  json curves = f.GetJson("/api/experiments/views/curves");
  CHECK(curves["overview"] == false);
  // Every epoch's eval line (the loss lines carry no objective).
  std::vector<std::pair<double, int64_t>> expected;
  for (int epoch = 1; epoch <= 9; ++epoch)
    expected.emplace_back(epoch, 2 * epoch);
  CHECK(PointsOfTrial(curves, trial) == expected);
  CHECK(PointsOf(curves) == 88 + 9);
}

TEST_CASE("a big experiment's first curves read is thinned by time step",
          "[server][api][dashboard]") {
  Fixture f(100);  // thinned past 100 reports
  f.now = 2000;
  core::TrialId trial = AddTrainerTrial(f, 70, {1, 3, 9, 27});
  json overview = f.GetJson("/api/experiments/views/curves");
  CHECK(overview["overview"] == true);
  // Its 1st, 4th, 16th and 64th epochs, its last, and every rung's epoch
  // (the views' rungs are at 1 and 2), each by its eval line.
  std::vector<std::pair<double, int64_t>> expected;
  for (int epoch : {1, 2, 3, 4, 9, 16, 27, 64, 70})
    expected.emplace_back(epoch, 2 * epoch);
  CHECK(PointsOfTrial(overview, trial) == expected);
  // The views' trials have at most 4 epochs: every one is kept.
  CHECK(PointsOf(overview) == 88 + expected.size());
  // A read with ?since= sends every report.
  json full = f.GetJson("/api/experiments/views/curves?since=0");
  CHECK(full["overview"] == false);
  CHECK(PointsOfTrial(full, trial).size() == 70);
  // The trials and decisions are columns too; params one array each.
  CHECK(overview["trials"]["params"]["lr"].size() ==
        overview["trials"]["id"].size());
  CHECK(overview["decisions"]["verdict"].size() ==
        overview["decisions"]["trial"].size());
}

TEST_CASE("trials, best and a trial over the API carry start, end, duration",
          "[server][api]") {
  Fixture f;
  f.now = 2000;
  auto trial = f.writer->trials().Add(f.experiment, 40, {{"lr", 1e-3}});
  REQUIRE(trial.ok());
  REQUIRE(f.writer->trials().MarkRunning(trial.value()).ok());
  REQUIRE(f.writer->reports()
              .Append({trial.value(), 1, 4.0, 2.0, {{"score", 2.0}}},
                      core::Mode::kMax)
              .ok());
  f.now = 2090;
  REQUIRE(f.writer->trials()
              .Finish(trial.value(),
                      {core::TrialStatus::kCompleted, 0, "", std::nullopt})
              .ok());
  REQUIRE(f.writer->Commit().ok());
  json best = f.GetJson("/api/experiments/views/best?format=json");
  REQUIRE(best.size() == 1);
  CHECK(best[0]["id"] == trial.value());
  CHECK(best[0]["start"] == 2000);
  CHECK(best[0]["end"] == 2090);
  CHECK(best[0]["duration"] == 90);
  json one = f.GetJson("/api/trials/" + std::to_string(trial.value()));
  CHECK(one["duration"] == 90);
  Response table = f.Get("/api/experiments/views/best?format=table");
  CHECK(table.body.find("start (UTC)") != std::string::npos);
  CHECK(table.body.find("1970-01-01 00:33:20  1970-01-01 00:34:50") !=
        std::string::npos);
  Response csv = f.Get("/api/experiments/views/trials?format=csv");
  CHECK(csv.body.find(",start,end,duration,reason\r\n") != std::string::npos);
  CHECK(csv.body.find(",2000,2090,90,\r\n") != std::string::npos);
}

TEST_CASE("curves ?metric= gives another stored metric",
          "[server][api][dashboard]") {
  Fixture f;
  json loss = f.GetJson("/api/experiments/views/curves?metric=loss");
  CHECK(loss["shown"] == "loss");
  CHECK(loss["metric"] == "score");
  CHECK(loss["points"]["value"][0].get<double>() ==
        Approx(1 - testing::ViewsScore(testing::ViewsLr(0), 1)));
  // A metric no report has: rows without points.
  json missing = f.GetJson("/api/experiments/views/curves?metric=nosuch");
  CHECK(missing["trials"]["id"].size() == testing::kViewsTrials);
  CHECK(PointsOf(missing) == 0);
}

TEST_CASE("curves and leases refuse a bad since or metric",
          "[server][api][dashboard]") {
  Fixture f;
  for (const char* target : {"/api/experiments/views/curves?since=abc",
                             "/api/experiments/views/curves?since=",
                             "/api/experiments/views/curves?since=inf",
                             "/api/experiments/views/leases?since=1e999",
                             "/api/experiments/views/curves?since=0x10",
                             "/api/experiments/views/curves?since=%205",
                             "/api/experiments/views/curves?since=0x1p3",
                             "/api/experiments/views/curves?since=+5",
                             "/api/experiments/views/leases?since=010",
                             "/api/experiments/views/curves?metric=a%22b",
                             "/api/experiments/views/curves?metric=",
                             "/api/experiments/views/curves?metric=a%5Cb",
                             // Not UTF-8.
                             "/api/experiments/views/curves?metric=a%FFb"}) {
    INFO(target);
    Response r = f.Get(target);
    CHECK(r.status == 400);
    CHECK(json::parse(r.body).contains("error"));
  }
  // A name a report may carry (a control, a bidi override) may be asked for.
  for (std::string name : {"a%1Bb", "a%E2%80%AEb", "a%C2%9Bb"}) {
    INFO(name);
    CHECK(f.Get("/api/experiments/views/curves?metric=" + name).status == 200);
  }
  // A cursor has a fraction, and an exponent is decimal too.
  CHECK(f.Get("/api/experiments/views/curves?since=1500.25").status == 200);
  CHECK(f.Get("/api/experiments/views/leases?since=1.5e3").status == 200);
}

TEST_CASE("leases ?since= returns the leases changed after it and those held",
          "[server][api][dashboard]") {
  Fixture f;
  storage::LeaseRecord lease;
  lease.trial = 1;
  lease.attempt = 1;
  lease.kind = "cpu";
  lease.devices = "0";
  auto done = f.writer->leases().Open(lease);
  REQUIRE(done.ok());
  REQUIRE(f.writer->leases().Close(done.value()).ok());
  f.now = 2000;
  lease.trial = 2;
  auto held = f.writer->leases().Open(lease);
  REQUIRE(held.ok());
  REQUIRE(f.writer->Commit().ok());

  json plain = f.GetJson("/api/experiments/views/leases");
  REQUIRE(plain.is_array());  // without ?since=, the list as before
  CHECK(plain.size() == 2);
  json changed = f.GetJson("/api/experiments/views/leases?since=1500");
  CHECK(changed["since"] == 1500.0);
  CHECK(changed["cursor"].is_number());
  REQUIRE(changed["leases"].size() == 1);
  CHECK(changed["leases"][0]["id"] == held.value());
  CHECK(changed["leases"][0]["released_at"].is_null());
  CHECK(f.GetJson("/api/experiments/views/leases?since=0")["leases"].size() ==
        2);
}

}  // namespace
}  // namespace tuner::server
