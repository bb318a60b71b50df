// Sweeps of an unmodified Trainer script (examples/fake_hf_trainer.py):
// pause at a rung's checkpoint, promotion resumes from it, trainer_state.json
// as the only metric source.
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/catch.h"
#include "tests/support/fake_machine.h"
#include "tests/tuner/sweep_harness.h"

namespace tuner::testing {
namespace {

using core::TrialStatus;

// 9 learning rates around the best (3e-5), one worker, so that the order of
// events (and so every decision) is the same from run to run.
std::string Config(const std::string& name, const std::string& mode,
                   const std::string& extra = "",
                   const std::string& checkpoints =
                       "{dir: \"{trial_dir}/output\", poll: 10ms}") {
  return "name: " + name + R"(
command: python3 FAKEHF --output_dir {trial_dir}/output --learning_rate {lr} --num_train_epochs {max_t} --per_device_train_batch_size 16 --epoch_seconds 0.08
metric: eval_f1
mode: max
time_attr: epoch
search_space:
  lr: {type: grid, values: [1.0e-6, 3.0e-4, 1.0e-5, 1.0e-4, 3.0e-5, 3.0e-6, 5.0e-5, 2.0e-5, 1.0e-3]}
searcher: {type: grid}
scheduler: {type: asha, mode: )" +
         mode + R"(, max_t: 9, grace_period: 1, reduction_factor: 3}
checkpoints: )" +
         checkpoints + R"(
devices: {kind: cpu, slots: 1}
)" + extra;
}

struct EpochLog {
  int epoch = 0;
  int64_t step = 0;
  int pid = 0;
};

std::vector<EpochLog> EpochsOf(const std::filesystem::path& trial_dir) {
  std::vector<EpochLog> out;
  std::ifstream in(trial_dir / "output" / "epochs_trained.jsonl");
  for (std::string line; std::getline(in, line);) {
    auto j = nlohmann::json::parse(line);
    out.push_back({j["epoch"], j["global_step"], j["pid"]});
  }
  return out;
}

int TotalEpochs(const SweepResult& result) {
  int total = 0;
  for (const auto& trial : result.trials)
    total += static_cast<int>(
        EpochsOf(result.dir / "trials" / std::to_string(trial.id)).size());
  return total;
}

double Best(const SweepResult& result) {
  double best = -1;
  for (const auto& t : result.trials)
    if (t.status == TrialStatus::kCompleted)
      best = std::max(best, *t.last_value);
  return best;
}

TEST_CASE("promotion resumes Trainer scripts from their rung checkpoint",
          "[trainer][process]") {
  auto promoted = RunSweep(Config("hf-promotion", "promotion"));
  REQUIRE(promoted.outcome == SweepOutcome::kFinished);
  REQUIRE(promoted.trials.size() == 9);
  int resumed = 0;
  for (const auto& trial : promoted.trials) {
    auto epochs = EpochsOf(promoted.dir / "trials" / std::to_string(trial.id));
    INFO("trial " << trial.id << " " << trial.reason);
    REQUIRE_FALSE(epochs.empty());
    // One run of epochs 1, 2, …: never an epoch twice, the global step
    // going on across processes.
    for (size_t i = 0; i < epochs.size(); ++i) {
      CHECK(epochs[i].epoch == static_cast<int>(i) + 1);
      if (i > 0) CHECK(epochs[i].step > epochs[i - 1].step);
      if (i > 0 && epochs[i].pid != epochs[i - 1].pid) ++resumed;
    }
    CHECK(static_cast<double>(epochs.size()) == trial.last_time);
  }
  CHECK(resumed >= 4);  // 3 promotions to rung 3, 1 to rung 9
  auto stopping = RunSweep(Config("hf-stopping", "stopping"));
  REQUIRE(stopping.outcome == SweepOutcome::kFinished);
  CHECK(Best(promoted) == Best(stopping));
  CHECK(Best(promoted) > 0.9);
  int promoted_epochs = TotalEpochs(promoted);
  int stopped_epochs = TotalEpochs(stopping);
  INFO(promoted_epochs << " epochs with promotion, " << stopped_epochs
                       << " with stopping");
  CHECK(promoted_epochs < stopped_epochs);
}

std::vector<std::string> Decisions(SweepResult& result) {
  std::vector<std::string> out;
  auto decisions = result.store->reports().ListDecisions(result.experiment.id);
  REQUIRE(decisions.ok());
  std::map<core::TrialId, int64_t> index;
  for (const auto& t : result.trials) index[t.id] = t.index;
  for (const auto& d : decisions.value()) {
    out.push_back(std::to_string(index[d.trial]) + "@" +
                  core::FormatDouble(d.decision.milestone) + ":" +
                  std::string(core::ToString(d.decision.verdict)) + ":" +
                  core::FormatDouble(d.decision.value));
  }
  return out;
}

TEST_CASE("trainer_state.json alone gives the decisions stdout gives",
          "[trainer][process]") {
  auto from_stdout = RunSweep(Config("hf-stdout", "promotion"));
  auto from_state = RunSweep(
      Config("hf-state", "promotion", "metrics_format: trainer_state\n"));
  REQUIRE(from_stdout.outcome == SweepOutcome::kFinished);
  REQUIRE(from_state.outcome == SweepOutcome::kFinished);
  auto a = Decisions(from_stdout);
  auto b = Decisions(from_state);
  CHECK(a.size() >= 13);
  CHECK(a == b);
}

TEST_CASE("checkpoints of stopped trials beyond keep_best are deleted",
          "[trainer][process]") {
  auto result = RunSweep(Config("hf-keep", "stopping", "",
                                "{dir: \"{trial_dir}/output\", keep_best: 1}"));
  REQUIRE(result.outcome == SweepOutcome::kFinished);
  int stopped = 0, kept = 0;
  for (const auto& trial : result.trials) {
    auto output = result.dir / "trials" / std::to_string(trial.id) / "output";
    bool has = std::filesystem::exists(output / "checkpoint-230");
    if (trial.status == TrialStatus::kCompleted) CHECK(has);
    if (trial.status != TrialStatus::kStopped) continue;
    ++stopped;
    kept += has;
  }
  CHECK(stopped >= 3);
  CHECK(kept == 1);
}

// Another user plants run_N as a link to a folder of theirs that holds a
// checkpoint-999: the trial writes through it (it is the trial's path), but
// keep_best, dropping the trial's checkpoints, walks from the fixed part of
// checkpoints.dir and leaves everything behind a link in place.
TEST_CASE("keep_best never follows a link on the way to a checkpoint",
          "[trainer][process]") {
  namespace fs = std::filesystem;
  fs::path ck = fs::temp_directory_path() /
                ("tuner-keep-links-" + std::to_string(getpid()));
  fs::remove_all(ck);
  std::vector<fs::path> theirs;
  for (int id = 1; id <= 9; ++id) {
    fs::path precious = ck / ("precious_" + std::to_string(id));
    fs::create_directories(precious / "data" / "checkpoint-999");
    std::ofstream(precious / "data" / "checkpoint-999" / "keep.txt") << "x";
    fs::create_directory_symlink(precious, ck / ("run_" + std::to_string(id)));
    theirs.push_back(precious / "data" / "checkpoint-999" / "keep.txt");
  }
  std::string dir = ck.string() + "/run_{trial_id}/data";
  std::string yaml = Config("hf-keep-links", "stopping", "",
                            "{dir: \"" + dir + "\", keep_best: 1}");
  std::string from = "--output_dir {trial_dir}/output";
  yaml.replace(yaml.find(from), from.size(), "--output_dir " + dir);
  auto result = RunSweep(yaml);
  REQUIRE(result.outcome == SweepOutcome::kFinished);
  int stopped = 0;
  for (const auto& trial : result.trials) {
    stopped += trial.status == TrialStatus::kStopped;
  }
  CHECK(stopped >= 3);  // so keep_best dropped the checkpoints of two
  for (const auto& file : theirs) {
    INFO(file);
    CHECK(fs::exists(file));
  }
  fs::remove_all(ck);
}

TEST_CASE("the shipped Gaudi config runs on a fake DL1 with a fake run_glue",
          "[trainer][devices][process]") {
  UseFakeMachine("dl1");
  std::ifstream in(SOURCE_DIR "/configs/gaudi-bert-mrpc.yaml");
  std::stringstream text;
  text << in.rdbuf();
  std::string yaml = text.str();
  auto replace = [&yaml](const std::string& from, const std::string& to) {
    size_t at = yaml.find(from);
    REQUIRE(at != std::string::npos);
    yaml.replace(at, from.size(), to);
  };
  replace("python run_glue.py",
          "python3 FAKEHF --epoch_seconds 0.03 --fractional_epochs "
          "--transformers_version 5");
  replace("num_trials: 40", "num_trials: 16");
  replace("/tmp/tuner-recipe-cache", "recipes");
  auto result = RunSweep(yaml);
  REQUIRE(result.outcome == SweepOutcome::kFinished);
  REQUIRE(result.trials.size() == 16);
  int completed = 0;
  for (const auto& trial : result.trials) {
    INFO("trial " << trial.id << ": " << trial.reason);
    CHECK(trial.status != TrialStatus::kFailed);
    completed += trial.status == TrialStatus::kCompleted;
  }
  CHECK(completed >= 1);
  // Epochs printed as 0.9996, 1.9996, … are judged as the rungs 1, 2, …:
  // every judged report's time is whole.
  auto reports = result.store->reports().List(result.trials[0].id);
  REQUIRE(reports.ok());
  int judged = 0;
  for (const auto& report : reports.value()) {
    if (!report.value || !report.time) continue;
    ++judged;
    CHECK(*report.time == std::round(*report.time));
  }
  CHECK(judged >= 1);
  auto leases = result.store->leases().List(result.experiment.id);
  REQUIRE(leases.ok());
  for (const auto& lease : leases.value()) CHECK(lease.kind == "habana");
}

}  // namespace
}  // namespace tuner::testing
