// The `tuner` binary as a user runs it: exit codes, stderr, output formats.
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/catch.h"
#include "tests/tuner_cli.h"

namespace tuner {
namespace {

namespace fs = std::filesystem;

using testing::Output;
using testing::ReadFile;

class CliFixture {
 public:
  CliFixture()
      : dir_(fs::temp_directory_path() /
             ("tuner-cli-" + std::to_string(getpid()))) {
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  ~CliFixture() { fs::remove_all(dir_); }

  // Runs `tuner ARGS` in the fixture's directory.
  Output Tuner(const std::string& args) {
    return testing::RunTuner(dir_, args);
  }
  void Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
  }

 private:
  fs::path dir_;
};

const char* kSweep = R"(name: cli-sweep
command: )" TOY_TRAINER R"( --lr {lr} --epochs {max_t} --format hf
metric: eval_score
mode: max
time_attr: epoch
search_space:
  lr: {type: loguniform, low: 1.0e-4, high: 1.0}
  width: {type: choice, values: [8, 16]}
searcher: {type: random, seed: 3}
num_trials: 12
scheduler: {type: asha, max_t: 9, grace_period: 1, reduction_factor: 3}
devices: {kind: cpu, slots: 2}
)";

TEST_CASE("tuner run with a bad config exits 2 with one line", "[tuner][cli]") {
  CliFixture f;
  f.Write("bad.yaml", std::string(kSweep).replace(
                          std::string(kSweep).find("high: 1.0"), 9, "high: 0"));
  Output bad = f.Tuner("run bad.yaml");
  CHECK(bad.code == 2);
  CHECK(bad.err ==
        "error: bad.yaml:7: search_space.lr.high: loguniform needs low < high "
        "(got low 1e-04, high 0)\n");
  Output missing = f.Tuner("run nothere.yaml");
  CHECK(missing.code == 2);
  CHECK(missing.err == "error: nothere.yaml: cannot read the file\n");
  CHECK(f.Tuner("frobnicate").code == 2);
}

TEST_CASE("tuner run then best and trials and status",
          "[tuner][cli][process]") {
  CliFixture f;
  f.Write("sweep.yaml", kSweep);
  Output run = f.Tuner("run sweep.yaml");
  INFO(run.err);
  REQUIRE(run.code == 0);
  CHECK(run.out.find("sweep finished") != std::string::npos);
  CHECK(f.Tuner("run sweep.yaml").code == 2);  // the name is taken

  Output trials = f.Tuner("trials cli-sweep --format json");
  REQUIRE(trials.code == 0);
  auto json = nlohmann::json::parse(trials.out);
  REQUIRE(json.size() == 12);
  int stopped = 0;
  for (const auto& t : json) {
    CHECK(t.contains("id"));
    CHECK(t["params"].contains("lr"));
    CHECK(t["params"]["width"].is_number_integer());
    std::string status = t["status"];
    CHECK((status == "completed" || status == "stopped"));
    if (status == "stopped") {
      ++stopped;
      double rung = t["last_time"];
      CHECK((rung == 1 || rung == 3));
    }
    CHECK(t["best_value"].get<double>() >= t["last_value"].get<double>());
  }
  CHECK(stopped > 0);

  Output best = f.Tuner("best cli-sweep --top 3 --format json");
  REQUIRE(best.code == 0);
  auto top = nlohmann::json::parse(best.out);
  REQUIRE(top.size() == 3);
  CHECK(top[0]["status"] == "completed");
  CHECK(top[0]["last_time"] == 9);
  Output args = f.Tuner("best cli-sweep --format args");
  REQUIRE(args.code == 0);
  CHECK(args.out.rfind("--lr ", 0) == 0);
  CHECK(args.out.find("--width ") != std::string::npos);
  Output yaml = f.Tuner("best cli-sweep --format yaml");
  CHECK(yaml.out.rfind("- id: ", 0) == 0);

  Output status = f.Tuner("status");
  REQUIRE(status.code == 0);
  CHECK(status.out.find("cli-sweep") != std::string::npos);
  CHECK(status.out.find("finished") != std::string::npos);
  Output unknown = f.Tuner("best nope");
  CHECK(unknown.code == 1);
  CHECK(unknown.err.find(
            "no experiment 'nope' in tuner.db (it has: cli-sweep)") !=
        std::string::npos);
}

}  // namespace
}  // namespace tuner

namespace tuner {
namespace {

TEST_CASE("tuner plan works on every shipped config", "[tuner][cli][plan]") {
  CliFixture cli;
  int planned = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(SOURCE_DIR "/configs")) {
    if (entry.path().extension() != ".yaml") continue;
    INFO(entry.path());
    Output text = cli.Tuner("plan '" + entry.path().string() + "'");
    CHECK(text.code == 0);
    CHECK(text.err.empty());
    CHECK(text.out.find("total: ") != std::string::npos);
    Output json = cli.Tuner(
        "plan --format json --unit-seconds 30 --devices 8 "
        "--price-per-hour 13.11 '" +
        entry.path().string() + "'");
    REQUIRE(json.code == 0);
    auto j = nlohmann::json::parse(json.out);
    CHECK(j["num_trials"].get<int64_t>() > 0);
    CHECK(j["total_units"].get<double>() > 0);
    CHECK(j["devices"]["cost"].get<double>() > 0);
    ++planned;
  }
  CHECK(planned >= 2);
  Output missing = cli.Tuner("plan nope.yaml");
  CHECK(missing.code == 2);
  CHECK(missing.err.find("nope.yaml") != std::string::npos);
}

}  // namespace
}  // namespace tuner
