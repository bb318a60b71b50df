// What a trial hands the tuner, however hostile: bytes that are not UTF-8.
// The sweep goes on and what it stores stays readable.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "storage/trial_store.h"
#include "tests/catch.h"
#include "tests/tuner_cli.h"

namespace tuner {
namespace {

namespace fs = std::filesystem;

using testing::Output;

const std::string kFffd = "\xEF\xBF\xBD";

fs::path FreshDir(const std::string& name) {
  fs::path dir = fs::temp_directory_path() /
                 ("tuner-input-" + name + "-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

TEST_CASE("bytes that are not UTF-8 from a trial and a config crash nothing",
          "[tuner][cli][process][utf8]") {
  fs::path dir = FreshDir("utf8");
  // \351 is Latin-1's e-acute: printed in a metric name and in the OOM
  // line that fails the trial; the config holds the raw byte in a choice
  // value (and names may only be ASCII).
  std::ofstream(dir / "sweep.yaml")
      << "name: utf8-sweep\n"
         "command: |\n"
         "  printf \"{{'lo\\351ss': 0.5, 'score': 0.5, 'epoch': 1}}\\n\"; "
         "printf 'torch.OutOfMemoryError: CUDA out of memory caf\\351\\n' "
         ">&2; exit 1\n"
         "shell: true\n"
         "metric: score\nmode: max\ntime_attr: epoch\n"
         "search_space: {opt: {type: choice, values: [\"caf\xe9\"]}}\n"
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
  CHECK(json[0]["params"]["opt"] == "caf" + kFffd);
  CHECK(json[0]["reason"].get<std::string>().ends_with(
      "out of memory: torch.OutOfMemoryError: CUDA out of memory caf" + kFffd));
  CHECK(testing::RunTuner(dir, "status").code == 0);

  auto store = storage::TrialStore::OpenReadOnly((dir / "tuner.db").string());
  REQUIRE(store.ok());
  auto experiment = store.value()->FindExperiment(name).value();
  REQUIRE(experiment);
  auto rows = store.value()->ListTrials(experiment->id).value();
  REQUIRE(rows.size() == 1);
  auto reports = store.value()->ListReports(rows[0].id).value();
  REQUIRE(reports.size() == 1);
  CHECK(reports[0].metrics == core::Metrics{{"lo" + kFffd + "ss", 0.5},
                                            {"score", 0.5},
                                            {"epoch", 1}});
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tuner
