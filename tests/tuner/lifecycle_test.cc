// The experiment life cycle without processes: extending a running or a
// finished sweep (ScriptedRunner on a ManualClock), and deleting an
// experiment's rows and files (crash-safe, never outside its own files).
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/catch.h"
#include "tests/tuner/lifecycle_harness.h"
#include "tuner/base/tuner_lock.h"
#include "tuner/config/stored_config.h"
#include "tuner/sweep/experiment_lifecycle.h"

namespace tuner::testing {
namespace {

namespace fs = std::filesystem;

TEST_CASE("a running sweep launches the trials an extension adds",
          "[tuner][lifecycle]") {
  storage::TrialStore* store = nullptr;
  bool extended = false;
  auto result = RunScripted(
      Yaml("grow", 2),
      [&](const runner::TrialLaunch& launch, int) {
        // While its last trial runs: the budget is spent, nothing waits.
        if (launch.trial == 2 && !extended) {
          extended = true;
          auto id = store->experiments().Find("grow").value()->id;
          REQUIRE(store->experiments().ExtendTrialBudget(id, 2, 3, 100).ok());
          REQUIRE(store->Commit().ok());
        }
        return ToyTrainerScript(0.5, 2);
      },
      {}, [&store](storage::TrialStore& s) { store = &s; });
  CHECK(extended);
  CHECK(result.outcome == SweepOutcome::kFinished);
  CHECK(result.experiment.status == core::ExperimentStatus::kFinished);
  CHECK(result.trials.size() == 5);
  // One after another on one slot, two reports a second apart each.
  CHECK(result.seconds == 10);
}

TEST_CASE("a finished experiment extended runs the new trials on resume",
          "[tuner][lifecycle]") {
  auto result = RunStored(Yaml("more", 2));
  REQUIRE(result.experiment.status == core::ExperimentStatus::kFinished);
  CHECK_FALSE(HasBudgetLeft(*result.store, result.experiment));
  auto extended = ExtendExperiment(*result.store, DbOf(result), "more", 3);
  INFO(extended.status().message());
  REQUIRE(extended.ok());
  CHECK(extended.value().budget == 5);
  CHECK(extended.value().trials == 2);
  CHECK(extended.value().status == core::ExperimentStatus::kFinished);
  CHECK_FALSE(extended.value().running);
  CHECK(HasBudgetLeft(*result.store, result.experiment));
  CHECK(ResumeScripted(result) == SweepOutcome::kFinished);
  CHECK(result.trials.size() == 5);
  CHECK(result.experiment.status == core::ExperimentStatus::kFinished);
  CHECK_FALSE(HasBudgetLeft(*result.store, result.experiment));
  // Bad counts and unknown names.
  CHECK(ExtendExperiment(*result.store, DbOf(result), "more", 0).error().code ==
        core::ErrorCode::kInvalidArgument);
  CHECK(ExtendExperiment(*result.store, DbOf(result), "nope", 1).error().code ==
        core::ErrorCode::kNotFound);
  CHECK(ExtendExperiment(*result.store, DbOf(result), "more", kMaxTrialBudget)
            .error()
            .code == core::ErrorCode::kInvalidArgument);
}

TEST_CASE("delete removes the rows and its own files, never a link's target",
          "[tuner][lifecycle]") {
  auto result = RunStored(Yaml("doomed", 2));
  std::string db = DbOf(result);
  fs::path root = TrialsRootFor(db, "doomed");
  REQUIRE(fs::exists(root / "1" / "params.json"));
  // A link inside its directory to something that is not its own.
  fs::path outside = result.dir / "precious" / "data.bin";
  Touch(outside);
  fs::create_directory_symlink(outside.parent_path(), root / "1" / "link");
  // Another experiment's files beside it.
  Touch(fs::path(TrialsRootFor(db, "doomed-2")) / "1" / "stdout.log");
  auto plan = PlanDelete(*result.store, db, "doomed");
  REQUIRE(plan.ok());
  CHECK(plan.value().trials == 2);
  CHECK(Paths(plan.value()) == std::vector<std::string>{root.string()});

  auto deleted = DeleteExperiment(*result.store, db, "doomed");
  INFO(deleted.status().message());
  REQUIRE(deleted.ok());
  CHECK(deleted.value().trials == 2);
  CHECK(deleted.value().removed == 1);
  CHECK(deleted.value().failed.empty());
  CHECK_FALSE(result.store->experiments().Find("doomed").value());
  CHECK(result.store->trials().List(result.experiment.id).value().empty());
  CHECK_FALSE(fs::exists(root));
  CHECK(fs::exists(outside));
  CHECK(
      fs::exists(fs::path(TrialsRootFor(db, "doomed-2")) / "1" / "stdout.log"));
  CHECK(DeleteExperiment(*result.store, db, "doomed").error().code ==
        core::ErrorCode::kNotFound);
}

TEST_CASE("delete refuses while a tuner holds the experiment's lock",
          "[tuner][lifecycle]") {
  auto result = RunStored(Yaml("busy", 1));
  std::string db = DbOf(result);
  std::string lock_path = TunerLockPath(TrialsRootFor(db, "busy"), "busy");
  auto lock = HoldTunerLock(lock_path, "server=http://127.0.0.1:9 pid=1");
  REQUIRE(lock);
  auto refused = DeleteExperiment(*result.store, db, "busy");
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code == core::ErrorCode::kAlreadyExists);
  CHECK(refused.message() ==
        "experiment 'busy' is running in the service at "
        "http://127.0.0.1:9; stop it first: tuner stop busy");
  CHECK(result.store->experiments().Find("busy").value());
  CHECK(fs::exists(fs::path(TrialsRootFor(db, "busy")) / "1"));
}

TEST_CASE("a delete cut short after its transaction is finished by a re-run",
          "[tuner][lifecycle]") {
  auto result = RunStored(Yaml("half", 1));
  std::string db = DbOf(result);
  auto plan = PlanDelete(*result.store, db, "half");
  REQUIRE(plan.ok());
  // What a crash right after the commit leaves: rows gone, files there.
  REQUIRE(
      result.store
          ->DeleteExperiment(result.experiment.id, "half", Paths(plan.value()))
          .ok());
  REQUIRE(result.store->Commit().ok());
  REQUIRE(fs::exists(TrialsRootFor(db, "half")));
  auto again = PlanDelete(*result.store, db, "half");
  REQUIRE(again.ok());
  CHECK_FALSE(again.value().stored);
  auto finished = DeleteExperiment(*result.store, db, "half");
  REQUIRE(finished.ok());
  CHECK(finished.value().removed == 1);
  CHECK_FALSE(fs::exists(TrialsRootFor(db, "half")));
  CHECK(result.store->experiments().DoomedPaths("half").value().empty());
}

TEST_CASE("an experiment of the shared trials/ layout loses only its dirs",
          "[tuner][lifecycle]") {
  // The harness's sweeps store no trials_root: the shared trials/ layout.
  auto result = RunScripted(
      Yaml("old", 2),
      [](const runner::TrialLaunch&, int) { return ToyTrainerScript(0.5, 1); });
  std::string db = DbOf(result);
  fs::path legacy = LegacyTrialsRoot(db);
  REQUIRE(fs::exists(legacy / "1"));
  REQUIRE(fs::exists(legacy / "2"));
  Touch(legacy / "99" / "stdout.log");  // another experiment's trial
  auto deleted = DeleteExperiment(*result.store, db, "old");
  INFO(deleted.status().message());
  REQUIRE(deleted.ok());
  CHECK_FALSE(fs::exists(legacy / "1"));
  CHECK_FALSE(fs::exists(legacy / "2"));
  CHECK(fs::exists(legacy / "99" / "stdout.log"));
}

TEST_CASE("delete never follows '..' in checkpoints.dir out of the trial",
          "[tuner][lifecycle]") {
  // {trial_dir}/../../.. is the folder of the database and the config.
  auto result = RunStored(WithCheckpoints("up", "{trial_dir}/../../.."));
  std::string db = DbOf(result);
  Touch(result.dir / "train.py");
  auto deleted = DeleteExperiment(*result.store, db, "up");
  INFO(deleted.status().message());
  REQUIRE(deleted.ok());
  CHECK(fs::exists(db));
  CHECK(fs::exists(result.dir / "train.py"));
  CHECK_FALSE(fs::exists(TrialsRootFor(db, "up")));
  REQUIRE(deleted.value().left.size() == 2);
  CHECK(deleted.value().left[0].ends_with(": it has a '..' component"));
  CHECK(result.store->experiments().DoomedPaths("up").value().empty());
}

TEST_CASE("delete leaves a checkpoints.dir that '..' takes off its trial",
          "[tuner][lifecycle]") {
  auto dir = fs::temp_directory_path() /
             ("tuner-lifecycle-vic-" + std::to_string(getpid()));
  fs::remove_all(dir);
  auto result = RunStored(
      WithCheckpoints("side", (dir / "{trial_id}" / ".." / "sub").string()));
  Touch(dir / "sub" / "data.bin");
  auto deleted = DeleteExperiment(*result.store, DbOf(result), "side");
  REQUIRE(deleted.ok());
  CHECK(fs::exists(dir / "sub" / "data.bin"));
  CHECK(deleted.value().left.size() == 2);
  fs::remove_all(dir);
}

TEST_CASE("delete removes a per-trial checkpoints.dir that names its trial",
          "[tuner][lifecycle]") {
  auto dir = fs::temp_directory_path() /
             ("tuner-lifecycle-ck-" + std::to_string(getpid()));
  fs::remove_all(dir);
  auto result =
      RunStored(WithCheckpoints("own", (dir / "ckpt_{trial_id}").string()));
  Touch(dir / "ckpt_1" / "model.pt");
  Touch(dir / "ckpt_2" / "model.pt");
  Touch(dir / "ckpt_12" / "model.pt");  // another experiment's trial 12
  auto deleted = DeleteExperiment(*result.store, DbOf(result), "own");
  REQUIRE(deleted.ok());
  CHECK(deleted.value().left.empty());
  CHECK_FALSE(fs::exists(dir / "ckpt_1"));
  CHECK_FALSE(fs::exists(dir / "ckpt_2"));
  CHECK(fs::exists(dir / "ckpt_12" / "model.pt"));
  fs::remove_all(dir);
}

TEST_CASE("a checkpoints.dir is the trial's own only by its id or trial_dir",
          "[tuner][lifecycle]") {
  CHECK(WhyNotTrialOwned("/c/7", 7, "/t/7").empty());
  CHECK(WhyNotTrialOwned("/c/ckpt_7/", 7, "/t/7").empty());
  CHECK(WhyNotTrialOwned("/t/7/ckpt", 7, "/t/7").empty());
  CHECK(WhyNotTrialOwned("/c/17", 7, "/t/7") ==
        "no component of it names trial 7");
  CHECK(WhyNotTrialOwned("/c/2070/x", 7, "/t/7") ==
        "no component of it names trial 7");
  CHECK(WhyNotTrialOwned("/t/7/../..", 7, "/t/7") == "it has a '..' component");
  CHECK(WhyNotTrialOwned("/v/7/../sub", 7, "/t/7") ==
        "it has a '..' component");
}

TEST_CASE("delete removes no doomed path the database names outside its own",
          "[tuner][lifecycle]") {
  auto result = RunStored(Yaml("bait", 1));
  std::string db = DbOf(result);
  fs::path victim = result.dir / "victim";
  Touch(victim / "thesis.tex");
  std::string root = TrialsRootFor(db, "bait");
  // A crafted database: rows gone, doomed paths of its choosing.
  REQUIRE(result.store
              ->DeleteExperiment(
                  result.experiment.id, "bait",
                  {root, victim.string(), root + "/../../victim", "/"})
              .ok());
  REQUIRE(result.store->Commit().ok());
  auto deleted = DeleteExperiment(*result.store, db, "bait");
  INFO(deleted.status().message());
  REQUIRE(deleted.ok());
  CHECK(fs::exists(victim / "thesis.tex"));
  CHECK_FALSE(fs::exists(root));
  CHECK(deleted.value().removed == 1);
  CHECK(deleted.value().left.size() == 3);
  CHECK(result.store->experiments().DoomedPaths("bait").value().empty());
}

TEST_CASE("extend refuses a grid whose budget has all its combinations",
          "[tuner][lifecycle]") {
  std::string grid =
      "name: g\ncommand: /bin/true --lr {lr}\nmetric: score\nmode: max\n"
      "time_attr: epoch\nsearch_space: {lr: {type: grid, values: [0.1, 0.2, "
      "0.3]}}\nsearcher: {type: grid}\ndevices: {kind: cpu, slots: 1}\n";
  auto result = RunStored(grid + "num_trials: 2\n");
  std::string db = DbOf(result);
  auto over = ExtendExperiment(*result.store, db, "g", 2);
  REQUIRE_FALSE(over.ok());
  CHECK(over.error().code == core::ErrorCode::kInvalidArgument);
  CHECK(over.message() ==
        "experiment 'g' searches a grid of 3 combinations and its budget is 2 "
        "trials: extend it by at most 1");
  REQUIRE(ExtendExperiment(*result.store, db, "g", 1).ok());
  auto spent = ExtendExperiment(*result.store, db, "g", 1);
  REQUIRE_FALSE(spent.ok());
  CHECK(spent.message() ==
        "experiment 'g' searches a grid of 3 combinations and its budget is 3 "
        "trials: it has no more configs to run");
}

}  // namespace
}  // namespace tuner::testing
