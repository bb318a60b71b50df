// What a trial hands the tuner, however hostile: bytes that are not UTF-8,
// non-finite progress, reports in a tight loop. The sweep goes on and what
// it stores stays readable.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>

#include "storage/trial_store.h"
#include "tests/catch.h"
#include "tests/support/fresh_dir.h"
#include "tests/support/tuner_cli.h"
#include "tests/tuner/sweep_harness.h"
#include "tuner/sweep/report_throttle.h"

namespace tuner {
namespace {

namespace fs = std::filesystem;

using testing::FreshDir;
using testing::Output;

const std::string kFffd = "\xEF\xBF\xBD";

TEST_CASE("bytes that are not UTF-8 from a trial and a config crash nothing",
          "[tuner][cli][process][utf8]") {
  fs::path dir = FreshDir("utf8");
  // \351 is Latin-1's e-acute: printed in a metric name and in the OOM
  // line that fails the trial. A config holding the raw byte is refused at
  // its line (it is the user's own file: say so rather than guess).
  std::ofstream(dir / "bad.yaml") << "name: bad\ncommand: echo\n"
                                     "search_space: {opt: {type: choice, "
                                     "values: [\"caf\xe9\"]}}\n";
  Output refused = testing::RunTuner(dir, "run bad.yaml");
  CHECK(refused.code == 2);
  CHECK(refused.err.find("bad.yaml:3: not UTF-8 text") != std::string::npos);
  std::ofstream(dir / "sweep.yaml")
      << "name: utf8-sweep\n"
         "command: |\n"
         "  printf \"{{'lo\\351ss': 0.5, 'score': 0.5, 'epoch': 1}}\\n\"; "
         "printf 'torch.OutOfMemoryError: CUDA out of memory caf\\351\\n' "
         ">&2; exit 1\n"
         "shell: true\n"
         "metric: score\nmode: max\ntime_attr: epoch\n"
         "search_space: {opt: {type: choice, values: [cafe]}}\n"
         "num_trials: 1\n"
         "scheduler: {type: fifo, max_t: 9}\n"
         "devices: {kind: cpu, slots: 1}\n";
  Output run = testing::RunTuner(dir, "run sweep.yaml");
  INFO(run.err);
  CHECK(run.code == 1);  // its only trial failed: data, not a crash
  CHECK(run.out.find("sweep finished") != std::string::npos);

  std::string name = "utf8-sweep";
  Output trials = testing::RunTuner(dir, "trials utf8-sweep --format json");
  INFO(trials.err);
  REQUIRE(trials.code == 0);
  auto json = nlohmann::json::parse(trials.out);
  REQUIRE(json.size() == 1);
  CHECK(json[0]["status"] == "failed");
  CHECK(json[0]["params"]["opt"] == "cafe");
  CHECK(json[0]["reason"].get<std::string>().ends_with(
      "out of memory: torch.OutOfMemoryError: CUDA out of memory caf" + kFffd));
  CHECK(testing::RunTuner(dir, "status").code == 0);

  auto store = storage::TrialStore::OpenReadOnly((dir / "tuner.db").string());
  REQUIRE(store.ok());
  auto experiment = store.value()->experiments().Find(name).value();
  REQUIRE(experiment);
  auto rows = store.value()->trials().List(experiment->id).value();
  REQUIRE(rows.size() == 1);
  auto reports = store.value()->reports().List(rows[0].id).value();
  REQUIRE(reports.size() == 1);
  CHECK(reports[0].metrics == core::Metrics{{"lo" + kFffd + "ss", 0.5},
                                            {"score", 0.5},
                                            {"epoch", 1}});
  fs::remove_all(dir);
}

// A shell trial (one line of sh) with metric score, time_attr epoch.
std::string ShellSweep(const std::string& name, const std::string& body,
                       const std::string& scheduler) {
  std::string escaped;  // {{ and }}: literal braces in a command
  for (char c : body) {
    escaped += c;
    if (c == '{' || c == '}') escaped += c;
  }
  return "name: " + name + "\ncommand: |\n  " + escaped +
         "\nshell: true\nmetric: score\nmode: max\ntime_attr: epoch\n"
         "search_space: {lr: {type: uniform, low: 0.1, high: 0.9}}\n"
         "num_trials: 1\nscheduler: " +
         scheduler + "\ndevices: {kind: cpu, slots: 1}\n";
}

// The trial's reports, scripted (no process): the sweep's rules, whatever
// the runner parsed them from.
testing::ScriptFor Reports(std::vector<core::Metrics> reports,
                           std::chrono::milliseconds step) {
  return [reports, step](const runner::TrialLaunch&, int) {
    testing::TrialScript script;
    script.reports = reports;
    script.step = step;
    return script;
  };
}

TEST_CASE("a non-finite time_attr is not a report", "[tuner]") {
  const double inf = std::numeric_limits<double>::infinity();
  auto result = testing::RunScripted(
      ShellSweep("nonfinite-time", "true",
                 "{type: asha, max_t: 3, grace_period: 1, reduction_factor: "
                 "3}"),
      Reports({{{"epoch", inf}, {"score", 0.9}},
               {{"epoch", std::nan("")}, {"score", 0.8}},
               {{"epoch", -inf}, {"score", 0.7}},
               {{"epoch", 1}, {"score", 0.5}}},
              std::chrono::milliseconds(1000)));
  REQUIRE(result.trials.size() == 1);
  CHECK(result.trials[0].status == core::TrialStatus::kCompleted);
  CHECK(result.trials[0].last_time == 1);
  CHECK(result.trials[0].last_value == 0.5);
  auto reports = result.store->reports().List(result.trials[0].id).value();
  REQUIRE(reports.size() == 1);
  CHECK(reports[0].time == 1);
}

TEST_CASE("the report throttle: a burst, then a rate", "[tuner][throttle]") {
  using Clock = ReportThrottle::Clock;
  ReportThrottle throttle(10, 3);
  Clock::time_point t0{};
  int admitted = 0;
  for (int i = 0; i < 100; ++i) admitted += throttle.Admit(t0);
  CHECK(admitted == 3);  // the burst
  CHECK_FALSE(throttle.Admit(t0 + std::chrono::milliseconds(50)));
  CHECK(throttle.Admit(t0 + std::chrono::milliseconds(100)));  // 1 token
  CHECK_FALSE(throttle.Admit(t0 + std::chrono::milliseconds(100)));
  CHECK_FALSE(throttle.Admit(t0));  // an earlier time refills nothing
  admitted = 0;
  for (int i = 0; i < 100; ++i)
    admitted += throttle.Admit(t0 + std::chrono::seconds(100));
  CHECK(admitted == 3);  // refilled up to the burst, not beyond
}

// The trial prints its reports all at once: the manual clock does not move
// between them, so the throttle never refills, whatever the machine's
// speed, and the trial gets its burst and no more.
TEST_CASE("a trial printing reports in a tight loop stores a bounded number",
          "[tuner][throttle]") {
  // 5000 judged reports (epoch grows), a rung at epoch 1, the newest judged
  // one at 1.5, then a line without the objective.
  std::vector<core::Metrics> printed;
  for (int i = 1; i <= 5000; ++i)
    printed.push_back({{"epoch", i / 5000.0}, {"score", 0.5}});
  printed.push_back({{"epoch", 1.5}, {"score", 0.9}});
  printed.push_back({{"loss", 0.1}});
  auto result = testing::RunScripted(
      ShellSweep("flood", "true",
                 "{type: asha, max_t: 3, grace_period: 1, reduction_factor: "
                 "3}"),
      Reports(printed, std::chrono::milliseconds(0)));
  REQUIRE(result.trials.size() == 1);
  CHECK(result.trials[0].status == core::TrialStatus::kCompleted);
  CHECK(result.trials[0].last_time == 1.5);
  CHECK(result.trials[0].last_value == 0.9);
  auto reports = result.store->reports().List(result.trials[0].id).value();
  // The burst, the rung's report (epoch 1), the newest judged, the newest.
  REQUIRE(reports.size() == ReportThrottle::kBurst + 3);
  auto at = [&](size_t i) { return reports[i].time.value_or(-1); };
  CHECK(at(ReportThrottle::kBurst - 1) == Approx(500.0 / 5000));
  CHECK(at(ReportThrottle::kBurst) == 1);
  CHECK(at(ReportThrottle::kBurst + 1) == 1.5);
  CHECK_FALSE(reports.back().time.has_value());
  CHECK(core::FindMetric(reports.back().metrics, "loss") == 0.1);
  for (size_t i = 1; i < reports.size(); ++i)
    CHECK(reports[i].seq > reports[i - 1].seq);
}

}  // namespace
}  // namespace tuner
