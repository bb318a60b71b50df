// Stored experiments for the life-cycle tests without processes: swept as
// `tuner run` stores them (ScriptedRunner on a ManualClock), resumed as
// `tuner resume` does.
#ifndef TUNER_TESTS_TUNER_LIFECYCLE_HARNESS_H_
#define TUNER_TESTS_TUNER_LIFECYCLE_HARNESS_H_

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/catch.h"
#include "tests/tuner/sweep_harness.h"
#include "tuner/base/tuner_lock.h"
#include "tuner/config/stored_config.h"
#include "tuner/sweep/experiment_lifecycle.h"

namespace tuner::testing {

// Scripted trials of /bin/true (no process runs them) on one CPU slot.
inline std::string Yaml(const std::string& name, int trials) {
  return "name: " + name +
         "\ncommand: /bin/true --lr {lr}\nmetric: score\nmode: max\n"
         "time_attr: epoch\nsearch_space: {lr: {type: uniform, low: 0.1, "
         "high: 0.9}}\nnum_trials: " +
         std::to_string(trials) + "\ndevices: {kind: cpu, slots: 1}\n";
}

inline std::string DbOf(const SweepResult& result) {
  return (result.dir / "tuner.db").string();
}

// Stores the config as `tuner run` does: trial dirs in <db>.trials/NAME/.
inline void StoreAsRun(const std::string& yaml, Sweep::Options& options) {
  std::filesystem::path dir =
      std::filesystem::path(options.trials_root).parent_path();
  auto config = LoadConfigText(yaml, "x.yaml", dir.string(), dir.string());
  REQUIRE(config.ok());
  options.trials_root =
      TrialsRootFor((dir / "tuner.db").string(), config.value().name);
  options.config_json =
      StoredConfigJson(config.value(), yaml, "x.yaml", dir.string(),
                       (dir / "tuner.db").string());
}

inline SweepResult RunStored(const std::string& yaml) {
  return RunScripted(
      yaml,
      [](const runner::TrialLaunch&, int) { return ToyTrainerScript(0.5, 2); },
      [&yaml](Sweep::Options& options) { StoreAsRun(yaml, options); });
}

// Resumes the stored experiment of `result` as `tuner resume` does.
inline SweepOutcome ResumeScripted(SweepResult& result) {
  auto config = LoadStoredConfig(result.experiment.config_json, DbOf(result));
  REQUIRE(config.ok());
  runner::DevicePool pool = TestPool(config.value());
  boost::asio::io_context io;
  ManualClock clock;
  NullProgress progress;
  Sweep::Options options = BaseOptions(config.value(), result, pool);
  options.config_json = result.experiment.config_json;
  options.trials_root = ExperimentTrialsRoot(
      result.experiment.config_json, DbOf(result), result.experiment.name);
  options.clock = &clock;
  options.make_runner = MakeScriptedRunner(
      clock,
      [](const runner::TrialLaunch&, int) { return ToyTrainerScript(0.5, 2); });
  Sweep sweep(io, config.value(), *result.store, progress, options);
  REQUIRE(sweep.Resume(result.experiment).ok());
  Drive(io, clock,
        [&sweep] { return sweep.outcome() == SweepOutcome::kRunning; });
  ReadBack(config.value(), result);
  return sweep.outcome();
}

inline void Touch(const std::filesystem::path& path) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << "x\n";
}

// The paths a delete would remove, as it records them.
inline std::vector<std::string> Paths(const DeletePlan& plan) {
  std::vector<std::string> paths;
  for (const auto& doomed : plan.paths) paths.push_back(doomed.path());
  return paths;
}

// Two trials that save checkpoints in `dir` (a template).
inline std::string WithCheckpoints(const std::string& name,
                                   const std::string& dir) {
  return Yaml(name, 2) + "checkpoints: {dir: \"" + dir + "\"}\n";
}

}  // namespace tuner::testing

#endif  // TUNER_TESTS_TUNER_LIFECYCLE_HARNESS_H_
