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
  Fixture() {
    std::string db = dir.db();
    auto opened = storage::TrialStore::Open(db);
    REQUIRE(opened.ok());
    writer = std::move(opened.value());
    writer->SetTimeSource([this] { return now; });
    experiment = testing::AddViewsExperiment(*writer, "views");
    stores.emplace(db);
    Api::Options options;
    options.db_path = db;
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

TEST_CASE("curves ?since= returns only the trials and reports after it",
          "[server][api][dashboard]") {
  Fixture f;
  json all = f.GetJson("/api/experiments/views/curves");
  CHECK(all["trials"]["id"].size() == testing::kViewsTrials);
  // 16 trials stop at epoch 1, 12 at epoch 2, 12 complete at epoch 4: the
  // first read is the overview (seq 1, 4, 16, ... and the last one), so the
  // trials of 4 reports send 2 of them.
  CHECK(all["overview"] == true);
  CHECK(PointsOf(all) == 16 + 12 * 2 + 12 * 2);
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
  auto trial = f.writer->AddTrial(f.experiment, 40,
                                  {{"lr", 1e-3}, {"batch", int64_t{16}}});
  REQUIRE(trial.ok());
  REQUIRE(f.writer->MarkRunning(trial.value()).ok());
  for (int epoch = 1; epoch <= 2; ++epoch) {
    REQUIRE(
        f.writer
            ->AppendReport({trial.value(), epoch, epoch, 0.5, {{"score", 0.5}}},
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

TEST_CASE("the first curves read sends each trial's overview points",
          "[server][api][dashboard]") {
  Fixture f;
  // A trial of 70 reports: the overview has seq 1, 4, 16, 64 and 70; a
  // read with ?since= sends every report.
  f.now = 2000;
  auto trial = f.writer->AddTrial(f.experiment, 40, {{"lr", 1e-3}});
  REQUIRE(trial.ok());
  REQUIRE(f.writer->MarkRunning(trial.value()).ok());
  for (int epoch = 1; epoch <= 70; ++epoch) {
    REQUIRE(
        f.writer
            ->AppendReport({trial.value(), epoch, epoch, 0.5, {{"score", 0.5}}},
                           core::Mode::kMax)
            .ok());
  }
  REQUIRE(f.writer->Commit().ok());
  auto seqs_of = [&](const json& curves) {
    std::vector<int64_t> out;
    const json& c = curves["points"];
    for (size_t i = 0; i < c["trial"].size(); ++i) {
      if (c["trial"][i] == trial.value()) out.push_back(c["seq"][i]);
    }
    return out;
  };
  json overview = f.GetJson("/api/experiments/views/curves");
  CHECK(seqs_of(overview) == std::vector<int64_t>{1, 4, 16, 64, 70});
  json full = f.GetJson("/api/experiments/views/curves?since=0");
  CHECK(seqs_of(full).size() == 70);
  // The trials and decisions are columns too; params one array each.
  CHECK(overview["trials"]["params"]["lr"].size() ==
        overview["trials"]["id"].size());
  CHECK(overview["decisions"]["verdict"].size() ==
        overview["decisions"]["trial"].size());
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
                             "/api/experiments/views/curves?metric=a%22b",
                             "/api/experiments/views/curves?metric=",
                             "/api/experiments/views/curves?metric=a%5Cb"}) {
    INFO(target);
    Response r = f.Get(target);
    CHECK(r.status == 400);
    CHECK(json::parse(r.body).contains("error"));
  }
}

TEST_CASE("leases ?since= returns the leases changed after it and those held",
          "[server][api][dashboard]") {
  Fixture f;
  storage::LeaseRecord lease;
  lease.trial = 1;
  lease.attempt = 1;
  lease.kind = "cpu";
  lease.devices = "0";
  auto done = f.writer->OpenLease(lease);
  REQUIRE(done.ok());
  REQUIRE(f.writer->CloseLease(done.value()).ok());
  f.now = 2000;
  lease.trial = 2;
  auto held = f.writer->OpenLease(lease);
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
