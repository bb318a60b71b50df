// Non-finite numbers in the API's answers follow core::JsonNumber, the rule
// of every JSON the tuner writes: a trial that diverged (inf) reads as the
// string "inf" in the API as in `tuner trials --format json`, never as the
// null of a value that was not reported. Api::Handle with no sockets.
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>

#include "core/json_number.h"
#include "storage/trial_store.h"
#include "tests/catch.h"
#include "tests/server/api_harness.h"
#include "tuner/server/api.h"
#include "tuner/server/store_pool.h"
#include "tuner/text/number_text.h"

namespace tuner::server {
namespace {

using Json = nlohmann::ordered_json;
constexpr double kInf = std::numeric_limits<double>::infinity();

// Experiment "diverged": trial 1 reported loss inf at epoch 1, -inf in a
// second metric and 0.5 in a third, then ended; trial 2 never reported.
struct Fixture {
  Fixture() {
    std::string db = dir.db();
    auto store = storage::TrialStore::Open(db).value();
    storage::ExperimentRecord e;
    e.name = "diverged";
    e.status = core::ExperimentStatus::kFinished;
    e.metric = "loss";
    e.mode = core::Mode::kMin;
    e.time_attr = "epoch";
    auto id = store->experiments().Create(e).value();
    auto trial = store->trials().Add(id, 0, {}).value();
    REQUIRE(store->trials().Add(id, 1, {}).ok());
    REQUIRE(store->trials().MarkRunning(trial).ok());
    REQUIRE(store->reports()
                .Append({trial,
                         1,
                         1.0,
                         kInf,
                         {{"loss", kInf}, {"grad", -kInf}, {"acc", 0.5}}},
                        core::Mode::kMin)
                .ok());
    REQUIRE(store->trials()
                .Finish(trial, {core::TrialStatus::kStopped, 0, "non-finite",
                                std::nullopt})
                .ok());
    REQUIRE(store->Commit().ok());
    stores.emplace(db);
    Api::Options options;
    options.db_path = db;
    api.emplace(*stores, bus, control, options);
  }

  Json Get(const std::string& target) {
    Request request;
    request.method = "GET";
    request.target = target;
    request.host = "127.0.0.1";
    std::optional<Response> answer;
    api->Handle(request, [&answer](Response r) { answer = std::move(r); });
    REQUIRE(answer);
    REQUIRE(answer->status == 200);
    return Json::parse(answer->body);
  }

  testing::ScratchDir dir{"tuner-api-numbers"};
  EventBus bus;
  testing::FakeControl control;
  std::optional<StorePool> stores;
  std::optional<Api> api;
};

TEST_CASE("one rule writes a measured number as JSON", "[core][json]") {
  using core::JsonNumber;
  CHECK(JsonNumber<Json>(std::nullopt).is_null());
  CHECK(JsonNumber<Json>(0.25) == Json(0.25));
  CHECK(JsonNumber<Json>(-0.0).get<double>() == 0.0);
  CHECK(JsonNumber<Json>(kInf) == Json("inf"));
  CHECK(JsonNumber<Json>(-kInf) == Json("-inf"));
  CHECK(JsonNumber<Json>(std::nan("")) == Json("nan"));
  // The CLI's listings use the same rule.
  for (std::optional<double> x :
       {std::optional<double>(), std::optional(kInf), std::optional(-kInf),
        std::optional(std::nan("")), std::optional(1e-300)}) {
    CHECK(tuner::JsonNumber(x).dump() == JsonNumber<Json>(x).dump());
  }
}

TEST_CASE("the API gives a diverged trial's values as the CLI does",
          "[server][api]") {
  Fixture f;
  Json trial = f.Get("/api/trials/1");
  REQUIRE(trial["reports"].size() == 1);
  const Json& report = trial["reports"][0];
  CHECK(report["value"] == "inf");
  CHECK(report["metrics"]["loss"] == "inf");
  CHECK(report["metrics"]["grad"] == "-inf");
  CHECK(report["time"] == 1.0);
  CHECK(f.Get("/api/trials/2")["reports"].empty());

  // A non-finite objective is never a trial's value (storage's rule).
  Json trials = f.Get("/api/experiments/diverged/trials");
  REQUIRE(trials.size() == 2);
  CHECK(trials[0]["last_value"].is_null());
  Json reports = f.Get("/api/experiments/diverged/reports");
  REQUIRE(reports.size() == 1);
  CHECK(reports[0]["value"] == "inf");
  CHECK(reports[0]["metrics"]["grad"] == "-inf");

  // A curve draws finite values only: a diverged metric is left out, as a
  // diverged objective is, never drawn as 0.
  for (const char* name : {"grad", "loss"}) {
    Json curves =
        f.Get(std::string("/api/experiments/diverged/curves?metric=") + name);
    CHECK(curves["points"]["value"].empty());
  }
  Json acc = f.Get("/api/experiments/diverged/curves?metric=acc");
  CHECK(acc["points"]["value"] == Json::array({0.5}));
  CHECK(f.Get("/api/experiments/diverged/curves")["points"]["value"].empty());
}

}  // namespace
}  // namespace tuner::server
