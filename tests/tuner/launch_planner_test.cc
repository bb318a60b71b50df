// LaunchPlanner: a trial's attempt on this machine (folder, files, command,
// environment, checkpoint to resume, report source), alone: no store, no
// runner, no scheduler.
#include "tuner/sweep/launch_planner.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/catch.h"
#include "tests/support/config_text.h"
#include "tests/support/fresh_dir.h"
#include "tuner/config/launch_spec.h"

namespace tuner::testing {
namespace {

namespace fs = std::filesystem;

const std::string kConfig = R"(name: plan
command: python3 train.py --lr {lr} --out {trial_dir}/model
metric: eval_accuracy
mode: max
time_attr: epoch
search_space:
  lr: {type: loguniform, low: 1.0e-4, high: 1.0}
num_trials: 4
scheduler: {type: asha, max_t: 9}
devices: {kind: cpu, slots: 2}
trial: {timeout: 10m}
env: {OUT: "{trial_dir}/out"}
)";

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string EnvOf(const runner::TrialLaunch& launch, const std::string& key) {
  for (const auto& [name, value] : launch.spawn.env) {
    if (name == key) return value;
  }
  return "<unset>";
}

runner::DeviceLease CpuLease() {
  runner::DeviceLease lease;
  lease.kind = runner::DeviceKind::kCpu;
  lease.devices.resize(1);
  return lease;
}

// trials/<id>/output/checkpoint-<step>/trainer_state.json with `entries`
// log_history entries.
void SaveCheckpoint(const fs::path& output, int step, int entries) {
  fs::path dir = output / ("checkpoint-" + std::to_string(step));
  fs::create_directories(dir);
  std::string history;
  for (int i = 0; i < entries; ++i) {
    history += std::string(i ? "," : "") +
               "{\"epoch\": " + std::to_string(i + 1) +
               ", \"eval_accuracy\": 0.5}";
  }
  std::ofstream(dir / "trainer_state.json")
      << "{\"global_step\": " << step << ", \"log_history\": [" << history
      << "]}";
}

TEST_CASE(
    "an attempt gets its folder, params.json, command, environment and "
    "limits",
    "[tuner][sweep][launch]") {
  fs::path root = FreshDir("launch-planner");
  auto config = Load(kConfig);
  REQUIRE(config.ok());
  LaunchPlanner planner(config.value(), root.string(), 4);
  core::Params params = {{"lr", 0.01}};
  auto planned = planner.Plan({7, &params, 0}, CpuLease(), 2);
  REQUIRE(planned.ok());
  const runner::TrialLaunch& launch = planned.value().launch;
  std::string dir = (root / "7").string();
  CHECK(planner.TrialDir(7) == dir);
  CHECK(ReadFile(root / "7" / "params.json").find("\"lr\"") !=
        std::string::npos);
  CHECK(launch.trial == 7);
  const auto& argv = launch.spawn.argv;
  CHECK(std::find(argv.begin(), argv.end(), "0.01") != argv.end());
  CHECK(std::find(argv.begin(), argv.end(), dir + "/model") != argv.end());
  CHECK(EnvOf(launch, "OUT") == dir + "/out");
  CHECK(launch.status_path == AttemptStatusPath(dir, 1));
  CHECK(launch.timeout == config.value().trial.timeout);
  CHECK_FALSE(launch.trainer_state);
  CHECK(planned.value().output_dir.empty());
  CHECK(planned.value().resumed_from.empty());
  // Each attempt holds its own ports until they are released.
  auto other = planner.Plan({8, &params, 0}, CpuLease(), 2);
  REQUIRE(other.ok());
  REQUIRE_FALSE(planned.value().ports.empty());
  REQUIRE_FALSE(other.value().ports.empty());
  CHECK(planned.value().ports.front() != other.value().ports.front());
  planner.ReleasePorts(planned.value().ports);
  planner.ReleasePorts(other.value().ports);
  fs::remove_all(root);
}

TEST_CASE(
    "a later attempt resumes from the trial's newest checkpoint and skips "
    "the reports that checkpoint holds",
    "[tuner][sweep][launch]") {
  fs::path root = FreshDir("launch-planner-resume");
  auto config = Load(kConfig + R"(metrics_format: trainer_state
checkpoints: {dir: "{trial_dir}/output"}
)");
  REQUIRE(config.ok());
  LaunchPlanner planner(config.value(), root.string(), 4);
  core::Params params = {{"lr", 0.01}};
  fs::path output = root / "3" / "output";
  SaveCheckpoint(output, 5, 2);
  SaveCheckpoint(output, 10, 3);
  CHECK(planner.OutputDir(3, params) == output.string());

  auto first = planner.Plan({3, &params, 0}, CpuLease(), 1);
  REQUIRE(first.ok());
  CHECK(first.value().output_dir == output.string());
  CHECK(first.value().resumed_from.empty());  // a first attempt starts over
  REQUIRE(first.value().launch.trainer_state);
  CHECK(first.value().launch.trainer_state->skip == 0);

  auto second = planner.Plan({3, &params, 1}, CpuLease(), 1);
  REQUIRE(second.ok());
  CHECK(second.value().resumed_from == (output / "checkpoint-10").string());
  CHECK(second.value().launch.status_path ==
        AttemptStatusPath(planner.TrialDir(3), 2));
  REQUIRE(second.value().launch.trainer_state);
  CHECK(second.value().launch.trainer_state->dir == output.string());
  CHECK(second.value().launch.trainer_state->skip == 3);
  fs::remove_all(root);
}

TEST_CASE(
    "a relative checkpoints dir is under workdir, an adopted attempt reads "
    "its own files, logs rotate per attempt",
    "[tuner][sweep][launch]") {
  fs::path root = FreshDir("launch-planner-files");
  auto config = Load(kConfig + R"(checkpoints: {dir: "ckpt/{trial_id}"}
)");
  REQUIRE(config.ok());
  ExperimentConfig c = config.value();
  c.workdir = (root / "work").string();
  LaunchPlanner planner(c, (root / "trials").string(), 1);
  core::Params params = {{"lr", 0.5}};
  CHECK(planner.OutputDir(4, params) ==
        (root / "work" / "ckpt" / "4").string());

  runner::TrialLaunch adopted = planner.AdoptionOf(4, 2, "");
  std::string dir = planner.TrialDir(4);
  CHECK(adopted.trial == 4);
  CHECK(adopted.spawn.stdout_path == dir + "/stdout.log");
  CHECK(adopted.spawn.stderr_path == dir + "/stderr.log");
  CHECK(adopted.status_path == AttemptStatusPath(dir, 2));
  CHECK_FALSE(adopted.trainer_state);

  fs::create_directories(dir);
  std::ofstream(dir + "/stdout.log") << "first attempt\n";
  std::ofstream(dir + "/stderr.log") << "oops\n";
  planner.RotateLogs(4, 1);
  CHECK_FALSE(fs::exists(dir + "/stdout.log"));
  CHECK(ReadFile(dir + "/stdout.attempt-1.log") == "first attempt\n");
  CHECK(ReadFile(dir + "/stderr.attempt-1.log") == "oops\n");
  fs::remove_all(root);
}

}  // namespace
}  // namespace tuner::testing
