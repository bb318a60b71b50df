// CheckpointKeeper: keep_best over the checkpoints of ended trials.
#include "tuner/sweep/checkpoint_keeper.h"

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/catch.h"
#include "tests/support/fresh_dir.h"

namespace tuner::testing {
namespace {

namespace fs = std::filesystem;
using core::TrialStatus;

struct Trials {
  Trials() : root(FreshDir("checkpoint-keeper")) {
    config.workdir = root.string();
    config.mode = core::Mode::kMax;
    config.checkpoints.dir = "{trial_dir}/output";
    config.checkpoints.keep_best = 1;
  }
  ~Trials() { fs::remove_all(root); }
  // trials/ID/output/checkpoint-10/, returned as the trial's output dir.
  std::string Trial(int id) {
    fs::path output = root / "trials" / std::to_string(id) / "output";
    fs::create_directories(output / "checkpoint-10");
    std::ofstream(output / "checkpoint-10" / "trainer_state.json") << "{}";
    return output.string();
  }
  bool Kept(const std::string& output) {
    return fs::exists(fs::path(output) / "checkpoint-10");
  }
  fs::path root;
  ExperimentConfig config;
};

TEST_CASE(
    "keep_best keeps the best stopped or failed trials' checkpoints "
    "and removes the others",
    "[tuner][sweep][keep_best]") {
  Trials t;
  CheckpointKeeper keeper(t.config, (t.root / "trials").string(), true);
  std::string a = t.Trial(1), b = t.Trial(2), c = t.Trial(3), d = t.Trial(4);
  keeper.Ended(TrialStatus::kStopped, 0.5, a);
  CHECK(t.Kept(a));
  keeper.Ended(TrialStatus::kStopped, 0.7, b);  // better: a's go
  CHECK_FALSE(t.Kept(a));
  CHECK(t.Kept(b));
  keeper.Ended(TrialStatus::kCompleted, 0.1, c);  // completed: never counted
  CHECK(t.Kept(c));
  keeper.Ended(TrialStatus::kFailed, std::nullopt, d);  // no value: last
  CHECK_FALSE(t.Kept(d));
  CHECK(t.Kept(b));
  CHECK(fs::exists(fs::path(a)));  // only the checkpoint folders go
}

TEST_CASE("keep_best in min mode, and -1 keeping everything",
          "[tuner][sweep][keep_best]") {
  Trials t;
  t.config.mode = core::Mode::kMin;
  CheckpointKeeper keeper(t.config, (t.root / "trials").string(), true);
  std::string a = t.Trial(1), b = t.Trial(2);
  keeper.Ended(TrialStatus::kStopped, 0.2, a);
  keeper.Ended(TrialStatus::kStopped, 0.9, b);
  CHECK(t.Kept(a));
  CHECK_FALSE(t.Kept(b));

  t.config.checkpoints.keep_best = -1;
  CheckpointKeeper all(t.config, (t.root / "trials").string(), true);
  std::string c = t.Trial(3), d = t.Trial(4);
  all.Ended(TrialStatus::kStopped, 0.2, c);
  all.Ended(TrialStatus::kStopped, 0.9, d);
  CHECK(t.Kept(c));
  CHECK(t.Kept(d));
}

TEST_CASE(
    "keep_best removes only folders directly in the trial's checkpoint "
    "dir: never the dir, its parent or a log, whatever the pattern",
    "[tuner][sweep][keep_best]") {
  Trials t;
  // A stored config is read back without the loader's checks.
  t.config.checkpoints.pattern = GENERATE(
      std::string("../output/checkpoint-*/trainer_state.json"),
      std::string("./checkpoint-*"), std::string("*/trainer_state.json"));
  CheckpointKeeper keeper(t.config, (t.root / "trials").string(), true);
  std::string a = t.Trial(1), b = t.Trial(2);
  std::ofstream(fs::path(a) / "stdout.log") << "log";
  keeper.Ended(TrialStatus::kStopped, 0.9, b);
  keeper.Ended(TrialStatus::kStopped, 0.1, a);  // worse: its checkpoints go
  INFO(t.config.checkpoints.pattern);
  CHECK(fs::exists(fs::path(a) / "stdout.log"));
  CHECK(fs::exists(fs::path(a)));
  CHECK(fs::exists(t.root / "trials" / "1"));
  bool star = t.config.checkpoints.pattern.front() == '*';
  CHECK(t.Kept(a) == !star);  // "*" names the checkpoint folder too
  CHECK(t.Kept(b));
}

TEST_CASE("a copy of the database removes nothing outside its trials root",
          "[tuner][sweep][keep_best]") {
  Trials t;
  fs::path elsewhere = t.root / "runs";
  t.config.checkpoints.dir = (elsewhere / "{trial_id}").string();
  CheckpointKeeper keeper(t.config, (t.root / "trials").string(), false);
  for (int id : {1, 2}) {
    fs::create_directories(elsewhere / std::to_string(id) / "checkpoint-10");
  }
  keeper.Ended(TrialStatus::kStopped, 0.9, (elsewhere / "1").string());
  keeper.Ended(TrialStatus::kStopped, 0.1, (elsewhere / "2").string());
  CHECK(fs::exists(elsewhere / "2" / "checkpoint-10"));  // left, warned
}

}  // namespace
}  // namespace tuner::testing
