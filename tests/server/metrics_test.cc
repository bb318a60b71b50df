// GET /metrics without sockets or processes: events fed by hand through
// EventProgress (time injected), then the exposition, checked line by line
// and by a format checker (tests/server/prometheus_check.h).

#include <filesystem>
#include <optional>

#include "tests/catch.h"
#include "tests/server/api_harness.h"
#include "tests/server/prometheus_check.h"
#include "tuner/server/api.h"
#include "tuner/server/build_info.h"
#include "tuner/server/event_progress.h"
#include "tuner/server/prometheus_text.h"
#include "tuner/server/store_pool.h"

namespace tuner::server {
namespace {

using testing::PrometheusProblems;

// An Api over an empty database in a temporary directory.
struct Fixture {
  Fixture() {
    std::string db = dir.db();
    REQUIRE(storage::TrialStore::Open(db).ok());
    stores.emplace(db);
    Api::Options options;
    options.db_path = db;
    options.devices_total = 4;
    options.devices_kind = "cpu";
    api.emplace(*stores, bus, control, options);
  }
  std::string Scrape() {
    Response answer = testing::GetNow(*api, "/metrics");
    REQUIRE(answer.status == 200);
    CHECK(answer.content_type == "text/plain; version=0.0.4; charset=utf-8");
    return answer.body;
  }

  testing::ScratchDir dir{"tuner-metrics"};
  EventBus bus;
  testing::FakeControl control;
  std::optional<StorePool> stores;
  std::optional<Api> api;
};

bool Has(const std::string& text, const std::string& line) {
  return text.find(line + "\n") != std::string::npos;
}

core::Decision Rung(core::Action action, core::RungVerdict verdict) {
  return {action, {{0, 0, 1, 0.5, 1, 2, verdict}}};
}

TEST_CASE("/metrics counts trials, reports, decisions and durations",
          "[server][metrics]") {
  Fixture f;
  std::chrono::steady_clock::time_point now{};
  EventProgress progress(f.bus, "lr-sweep", core::Mode::kMin,
                         [&] { return now; });
  core::Params params = {{"lr", core::ParamValue(0.1)}};
  SweepCounts c{1, 4, 1};
  progress.TrialStarted({1, &params, 1}, c);
  now += std::chrono::seconds(20);
  progress.TrialReported({1, &params, 1}, 1, 0.75, core::Decision{}, c);
  progress.TrialReported({1, &params, 1}, 2, 0.5,
                         Rung(core::Action::kPause, core::RungVerdict::kPause),
                         c);
  c.running = 0, c.paused = 1;
  progress.TrialEnded({1, &params, 1}, core::TrialStatus::kPaused, "", c);
  now += std::chrono::hours(1);  // paused: not counted as running
  c.running = 1, c.paused = 0;
  progress.TrialStarted({1, &params, 2}, c);
  now += std::chrono::seconds(25);
  progress.TrialReported({1, &params, 2}, 3, std::nan(""), core::Decision{}, c);
  c.running = 0, c.completed = 1;
  progress.TrialEnded({1, &params, 2}, core::TrialStatus::kCompleted, "", c);
  c.started = 2, c.running = 1;
  progress.TrialStarted({2, &params, 1}, c);
  now += std::chrono::hours(30);
  progress.TrialReported({2, &params, 1}, 1, 0.9,
                         Rung(core::Action::kStop, core::RungVerdict::kStop),
                         c);
  c.running = 0, c.stopped = 1;
  progress.TrialEnded({2, &params, 1}, core::TrialStatus::kStopped, "", c);
  f.control.running = {{"lr-sweep", 1, 3, false}};
  // The sweep ends a paused trial's run (TrialEnded, paused) before its
  // promotion: that start is still told as one.
  bool lost = false;
  int promoted = 0;
  for (const auto& e : f.bus.Since(0, 100, lost))
    promoted += e.type == "trial_promoted";
  CHECK(promoted == 1);

  std::string text = f.Scrape();
  INFO(text);
  CHECK(PrometheusProblems(text).empty());
  CHECK(Has(text, "tuner_build_info{version=\"" + std::string(BuildVersion()) +
                      "\",commit=\"" + std::string(BuildCommit()) + "\"} 1"));
  CHECK(Has(text, "tuner_reports_total{experiment=\"lr-sweep\"} 4"));
  CHECK(Has(text, "tuner_trials_started_total{experiment=\"lr-sweep\"} 2"));
  CHECK(Has(text,
            "tuner_trials_finished_total{experiment=\"lr-sweep\","
            "status=\"completed\"} 1"));
  CHECK(Has(text,
            "tuner_trials_finished_total{experiment=\"lr-sweep\","
            "status=\"stopped\"} 1"));
  CHECK(Has(text,
            "tuner_trials_finished_total{experiment=\"lr-sweep\","
            "status=\"failed\"} 0"));
  for (const char* d : {"pause", "promote", "stop"}) {
    CHECK(
        Has(text, "tuner_decisions_total{experiment=\"lr-sweep\",decision=\"" +
                      std::string(d) + "\"} 1"));
  }
  CHECK(Has(text, "tuner_experiment_best_value{experiment=\"lr-sweep\"} 0.5"));
  CHECK(Has(text, "tuner_trials{experiment=\"lr-sweep\",state=\"stopped\"} 1"));
  // Trial 1 ran 45 s (its pause excluded), trial 2 30 h.
  CHECK(Has(text, "tuner_trial_duration_seconds_bucket{le=\"30\"} 0"));
  CHECK(Has(text, "tuner_trial_duration_seconds_bucket{le=\"60\"} 1"));
  CHECK(Has(text, "tuner_trial_duration_seconds_bucket{le=\"86400\"} 1"));
  CHECK(Has(text, "tuner_trial_duration_seconds_bucket{le=\"172800\"} 2"));
  CHECK(Has(text, "tuner_trial_duration_seconds_bucket{le=\"+Inf\"} 2"));
  CHECK(Has(text, "tuner_trial_duration_seconds_sum 108045"));
  CHECK(Has(text, "tuner_trial_duration_seconds_count 2"));
  CHECK(Has(text, "tuner_devices_held{experiment=\"lr-sweep\"} 3"));
  CHECK(Has(text, "tuner_device_occupancy 0.75"));
  CHECK(text.find("per_second") == std::string::npos);  // counters, no rates
}

TEST_CASE("/metrics escapes label values and stays well formed",
          "[server][metrics]") {
  CHECK(EscapeLabelValue("a\"b\\c\nd") == "a\\\"b\\\\c\\nd");
  CHECK(EscapeLabelValue("caf\xc3\xa9") == "caf\xc3\xa9");
  CHECK(EscapeLabelValue("bad\xff") == "bad\xef\xbf\xbd");
  CHECK(FormatSampleValue(3) == "3");
  CHECK(FormatSampleValue(0.25) == "0.25");
  CHECK(FormatSampleValue(INFINITY) == "+Inf");
  CHECK(FormatSampleValue(-INFINITY) == "-Inf");
  CHECK(FormatSampleValue(NAN) == "NaN");

  Fixture f;
  std::string hostile = "we\"ird\\name\nx";
  EventProgress progress(f.bus, hostile, core::Mode::kMax);
  core::Params params;
  SweepCounts c{1, 1, 1};
  progress.TrialStarted({1, &params, 1}, c);
  progress.TrialReported({1, &params, 1}, 1, -INFINITY, core::Decision{}, c);
  std::string text = f.Scrape();
  INFO(text);
  CHECK(PrometheusProblems(text).empty());
  CHECK(
      Has(text, "tuner_reports_total{experiment=\"we\\\"ird\\\\name\\nx\"} 1"));
  // A non-finite value is no best.
  CHECK(text.find("tuner_experiment_best_value{") == std::string::npos);
}

TEST_CASE("the format checker catches what a scraper refuses",
          "[server][metrics]") {
  CHECK(PrometheusProblems("x_total 1\n").size() == 1);  // no HELP/TYPE
  CHECK(PrometheusProblems("# HELP x h\n# TYPE x counter\nx 1\n").size() == 1);
  CHECK(PrometheusProblems(
            "# HELP g h\n# TYPE g gauge\ng{a=\"1\"} 1\ng{a=\"1\"} 2\n")
            .size() == 1);
  CHECK(PrometheusProblems("# HELP g h\n# TYPE g gauge\ng{a=\"x\\q\"} 1\n")
            .size() == 1);
  CHECK(PrometheusProblems("# HELP g h\n# TYPE g gauge\ng one\n").size() == 1);
  CHECK(PrometheusProblems("# HELP h h\n# TYPE h histogram\n"
                           "h_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} 1\n"
                           "h_sum 1\nh_count 1\n")
            .size() == 1);
}

}  // namespace
}  // namespace tuner::server
