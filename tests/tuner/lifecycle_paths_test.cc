// Which files a stored experiment's delete and resume act on, without
// processes: those in the database's own folder wherever it was moved or
// copied, whatever trials_root the database names, and never through a
// symbolic link on the way.
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "tests/catch.h"
#include "tests/tuner/lifecycle_harness.h"
#include "tuner/base/remove_tree.h"
#include "tuner/base/tuner_lock.h"
#include "tuner/sweep/experiment_lifecycle.h"

namespace tuner::testing {
namespace {

namespace fs = std::filesystem;

fs::path Scratch(const std::string& what) {
  fs::path dir = fs::temp_directory_path() /
                 ("tuner-lifecycle-" + what + "-" + std::to_string(getpid()));
  fs::remove_all(dir);
  return dir;
}

// `result`'s folder, its database closed, copied or moved to `to`; the
// database there opened.
SweepResult Relocated(SweepResult& result, const fs::path& to, bool move) {
  std::string name = result.experiment.name;
  result.store.reset();
  fs::remove_all(to);
  if (move) {
    fs::rename(result.dir, to);
  } else {
    fs::copy(result.dir, to, fs::copy_options::recursive);
  }
  SweepResult there;
  there.dir = to;
  auto store = storage::TrialStore::Open((to / "tuner.db").string());
  REQUIRE(store.ok());
  there.store = std::move(store).value();
  there.experiment = *there.store->experiments().Find(name).value();
  return there;
}

TEST_CASE("a copied database resumes and deletes in its own folder only",
          "[tuner][lifecycle][paths]") {
  auto original = RunStored(Yaml("base", 1));
  fs::path theirs = TrialsRootFor(DbOf(original), "base");
  auto copy = Relocated(original, Scratch("copy"), false);
  std::string db = DbOf(copy);
  fs::path mine = TrialsRootFor(db, "base");
  REQUIRE(ExtendExperiment(*copy.store, db, "base", 1).ok());
  CHECK(ResumeScripted(copy) == SweepOutcome::kFinished);
  CHECK(fs::exists(mine / "2" / "params.json"));
  CHECK_FALSE(fs::exists(theirs / "2"));

  auto deleted = DeleteExperiment(*copy.store, db, "base");
  INFO(deleted.status().message());
  REQUIRE(deleted.ok());
  CHECK(deleted.value().removed == 1);
  CHECK_FALSE(fs::exists(mine));
  CHECK(fs::exists(theirs / "1" / "params.json"));
  fs::remove_all(original.dir);
  fs::remove_all(copy.dir);
}

TEST_CASE("a moved database deletes its own folder and creates nothing",
          "[tuner][lifecycle][paths]") {
  auto original = RunStored(Yaml("base", 1));
  fs::path old_dir = original.dir;
  auto moved = Relocated(original, Scratch("moved"), true);
  std::string db = DbOf(moved);
  auto plan = PlanDelete(*moved.store, db, "base");
  REQUIRE(plan.ok());
  CHECK(plan.value().trials_root == TrialsRootFor(db, "base"));

  auto deleted = DeleteExperiment(*moved.store, db, "base");
  INFO(deleted.status().message());
  REQUIRE(deleted.ok());
  CHECK(deleted.value().removed == 1);
  CHECK_FALSE(fs::exists(TrialsRootFor(db, "base")));
  CHECK_FALSE(fs::exists(old_dir));
  fs::remove_all(moved.dir);
}

// Stored as `tuner run` stores it, then `trials_root` set to `claimed`
// (as sqlite's json_set would).
SweepResult RunClaiming(const std::string& yaml, const std::string& claimed) {
  return RunScripted(
      yaml,
      [](const runner::TrialLaunch&, int) { return ToyTrainerScript(0.5, 2); },
      [&](Sweep::Options& options) {
        StoreAsRun(yaml, options);
        auto json = nlohmann::json::parse(options.config_json);
        json["trials_root"] = claimed;
        options.config_json = json.dump();
      });
}

TEST_CASE("a trials_root the database names elsewhere steers no delete",
          "[tuner][lifecycle][paths]") {
  fs::path victim = Scratch("victim");
  for (const std::string& claimed : {victim.string(), std::string()}) {
    INFO("trials_root: '" << claimed << "'");
    Touch(victim / "1" / "thesis.tex");
    auto result = RunClaiming(Yaml("bait", 1), claimed);
    std::string db = DbOf(result);
    std::string root = TrialsRootFor(db, "bait");
    auto plan = PlanDelete(*result.store, db, "bait");
    REQUIRE(plan.ok());
    REQUIRE(Paths(plan.value()) == std::vector<std::string>{root});
    CHECK(plan.value().lock_path == TunerLockPath(root, "bait"));

    auto deleted = DeleteExperiment(*result.store, db, "bait");
    INFO(deleted.status().message());
    REQUIRE(deleted.ok());
    CHECK(deleted.value().removed == 1);
    CHECK_FALSE(fs::exists(root));
    CHECK(fs::exists(victim / "1" / "thesis.tex"));
    fs::remove_all(result.dir);
  }
  fs::remove_all(victim);
}

TEST_CASE(
    "a copy of a database leaves the checkpoint dirs outside its trial "
    "folder, and names them",
    "[tuner][lifecycle][paths]") {
  fs::path ck = Scratch("shared-ck");
  auto original =
      RunStored(WithCheckpoints("ck", (ck / "ckpt_{trial_id}").string()));
  Touch(ck / "ckpt_1" / "model.pt");
  Touch(ck / "ckpt_2" / "model.pt");
  auto copy = Relocated(original, Scratch("ck-copy"), false);
  auto deleted = DeleteExperiment(*copy.store, DbOf(copy), "ck");
  INFO(deleted.status().message());
  REQUIRE(deleted.ok());
  CHECK(fs::exists(ck / "ckpt_1" / "model.pt"));
  CHECK(fs::exists(ck / "ckpt_2" / "model.pt"));
  REQUIRE(deleted.value().left.size() == 2);
  CHECK(deleted.value().left[0] ==
        (ck / "ckpt_1").string() +
            ": this database is not the file the experiment was created in "
            "(a copy?): remove it yourself if it is this experiment's");
  CHECK_FALSE(fs::exists(TrialsRootFor(DbOf(copy), "ck")));

  // The database they were made by removes them.
  original.store = storage::TrialStore::Open(DbOf(original)).value();
  auto theirs = DeleteExperiment(*original.store, DbOf(original), "ck");
  REQUIRE(theirs.ok());
  CHECK(theirs.value().left.empty());
  CHECK_FALSE(fs::exists(ck / "ckpt_1"));
  fs::remove_all(ck);
  fs::remove_all(copy.dir);
  fs::remove_all(original.dir);
}

TEST_CASE("a path both left and recorded as doomed is named once",
          "[tuner][lifecycle][paths]") {
  fs::path ck = Scratch("named-once");
  auto original =
      RunStored(WithCheckpoints("ck", (ck / "ckpt_{trial_id}").string()));
  Touch(ck / "ckpt_1" / "model.pt");
  auto copy = Relocated(original, Scratch("named-once-copy"), false);
  // A delete cut short in the copy recorded it; it is still not the copy's.
  std::string doomed = (ck / "ckpt_1").string();
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(DbOf(copy).c_str(), &db) == SQLITE_OK);
  std::string sql =
      "INSERT INTO doomed_paths (path, experiment, created_at) VALUES ('" +
      doomed + "', 'ck', 0)";
  CHECK(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK);
  sqlite3_close(db);
  auto deleted = DeleteExperiment(*copy.store, DbOf(copy), "ck");
  REQUIRE(deleted.ok());
  CHECK(fs::exists(ck / "ckpt_1" / "model.pt"));
  REQUIRE(deleted.value().left.size() == 1);  // ckpt_2 was never made
  CHECK(deleted.value().left[0].starts_with(doomed + ": this database is not"));
  fs::remove_all(ck);
  fs::remove_all(copy.dir);
  fs::remove_all(original.dir);
}

TEST_CASE("a crafted database steers no delete to a folder named like a trial",
          "[tuner][lifecycle][paths]") {
  fs::path victim = Scratch("victim-years");
  Touch(victim / "1" / "thesis.tex");
  for (const std::string& file_id : {std::string(), std::string("1:2")}) {
    INFO("db_file: '" << file_id << "'");
    std::string yaml =
        WithCheckpoints("years", (victim / "{trial_id}").string());
    auto result = RunScripted(
        yaml,
        [](const runner::TrialLaunch&, int) {
          return ToyTrainerScript(0.5, 2);
        },
        [&](Sweep::Options& options) {
          StoreAsRun(yaml, options);
          auto json = nlohmann::json::parse(options.config_json);
          if (file_id.empty()) {
            json.erase("db_file");
          } else {
            json["db_file"] = file_id;
          }
          options.config_json = json.dump();
        });
    auto deleted = DeleteExperiment(*result.store, DbOf(result), "years");
    REQUIRE(deleted.ok());
    CHECK(fs::exists(victim / "1" / "thesis.tex"));
    // Trial 2's folder was never made: only what is there is named.
    REQUIRE(deleted.value().left.size() == 1);
    CHECK(deleted.value().left[0].starts_with((victim / "1").string() + ": "));
    fs::remove_all(result.dir);
  }
  fs::remove_all(victim);
}

TEST_CASE("delete counts only the paths that were there and creates none",
          "[tuner][lifecycle][paths]") {
  auto result = RunStored(Yaml("bare", 1));
  fs::path trials = result.dir / "tuner.db.trials";
  fs::remove_all(trials);
  auto deleted = DeleteExperiment(*result.store, DbOf(result), "bare");
  INFO(deleted.status().message());
  REQUIRE(deleted.ok());
  CHECK(deleted.value().removed == 0);
  CHECK(deleted.value().failed.empty());
  CHECK_FALSE(fs::exists(trials));
  CHECK_FALSE(result.store->experiments().Find("bare").value());
  fs::remove_all(result.dir);
}

// The paths under `dir` that are not in `before`, the database's own
// journal aside.
std::vector<std::string> Added(const fs::path& dir,
                               const std::set<std::string>& before) {
  std::vector<std::string> added;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    std::string path = entry.path().string();
    if (entry.path().filename().string().rfind("tuner.db-", 0) == 0) continue;
    if (!before.count(path)) added.push_back(path);
  }
  return added;
}

TEST_CASE(
    "delete of a stored name that is no path component deletes its rows and "
    "creates nothing",
    "[tuner][lifecycle][paths]") {
  auto result = RunStored(Yaml("bare", 1));
  for (const std::string name : {"..", "../x", "."}) {
    INFO(name);
    // As a crafted row: a stored experiment of that name.
    storage::ExperimentRecord crafted = result.experiment;
    crafted.name = name;
    REQUIRE(result.store->experiments().Create(crafted).ok());
    REQUIRE(result.store->Commit().ok());
    std::vector<std::string> listed = Added(result.dir, {});
    std::set<std::string> before(listed.begin(), listed.end());
    auto deleted = DeleteExperiment(*result.store, DbOf(result), name);
    INFO(deleted.status().message());
    CHECK(deleted.ok());
    CHECK(Added(result.dir, before).empty());
    CHECK_FALSE(result.store->experiments().Find(name).value());
  }
  CHECK(result.store->experiments().Find("bare").value());
  CHECK(fs::exists(result.dir / "tuner.db.trials" / "bare"));
  fs::remove_all(result.dir);
}

TEST_CASE(
    "keep_best removes checkpoints outside the trial directories only for "
    "the database the experiment was created in",
    "[tuner][lifecycle][paths]") {
  fs::path out = Scratch("keep-best-out");
  for (bool original : {false, true}) {
    INFO("original database: " << original);
    fs::remove_all(out);
    for (int id = 1; id <= 3; ++id) {
      Touch(out / ("run_" + std::to_string(id)) / "checkpoint-1" /
            "trainer_state.json");
    }
    std::string yaml = Yaml("kb", 3) + "checkpoints: {dir: \"" +
                       (out / "run_{trial_id}").string() +
                       "\", keep_best: 1}\n";
    auto result = RunScripted(
        yaml,
        [](const runner::TrialLaunch&, int) {
          TrialScript script = ToyTrainerScript(0.5, 2);
          script.exit_code = 1;  // failed: keep_best prunes its checkpoints
          return script;
        },
        [&](Sweep::Options& options) {
          StoreAsRun(yaml, options);
          options.original_database = original;
        });
    int kept = 0;
    for (int id = 1; id <= 3; ++id) {
      kept += fs::exists(out / ("run_" + std::to_string(id)) / "checkpoint-1");
    }
    CHECK(kept == (original ? 1 : 3));
    fs::remove_all(result.dir);
  }
  fs::remove_all(out);
}

TEST_CASE("delete never follows a link in the middle of a checkpoint path",
          "[tuner][lifecycle][paths]") {
  fs::path dir = Scratch("mid");
  auto result = RunStored(WithCheckpoints(
      "mid", (dir / "ck" / "run_{trial_id}" / "data").string()));
  // Trial 2 saved its checkpoints; another user planted run_1 first.
  Touch(dir / "ck" / "run_2" / "data" / "model.pt");
  fs::path precious = dir / "precious";
  Touch(precious / "data" / "thesis.tex");
  fs::remove_all(dir / "ck" / "run_1");
  fs::create_directory_symlink(precious, dir / "ck" / "run_1");

  auto deleted = DeleteExperiment(*result.store, DbOf(result), "mid");
  INFO(deleted.status().message());
  REQUIRE(deleted.ok());
  CHECK(fs::exists(precious / "data" / "thesis.tex"));
  CHECK(fs::is_symlink(dir / "ck" / "run_1"));
  CHECK_FALSE(fs::exists(dir / "ck" / "run_2" / "data"));
  CHECK(deleted.value().left ==
        std::vector<std::string>{(dir / "ck" / "run_1").string() +
                                 ": a symbolic link, not followed"});
  CHECK(deleted.value().removed == 2);  // its trial folder, run_2/data
  CHECK(result.store->experiments().DoomedPaths("mid").value().empty());
  fs::remove_all(dir);
  fs::remove_all(result.dir);
}

TEST_CASE("delete never follows a link on the way to its trial folder",
          "[tuner][lifecycle][paths]") {
  auto result = RunStored(Yaml("away", 1));
  fs::path trials = result.dir / "tuner.db.trials";
  fs::path precious = result.dir / "precious";
  fs::rename(trials, precious);
  fs::create_directory_symlink(precious, trials);

  auto deleted = DeleteExperiment(*result.store, DbOf(result), "away");
  INFO(deleted.status().message());
  REQUIRE(deleted.ok());
  CHECK(fs::exists(precious / "away" / "1" / "params.json"));
  CHECK_FALSE(fs::exists(precious / "away" / ".tuner-away.lock"));
  CHECK(deleted.value().removed == 0);
  CHECK(deleted.value().left ==
        std::vector<std::string>{trials.string() +
                                 ": a symbolic link, not followed"});
  fs::remove_all(result.dir);
}

TEST_CASE("RemoveTreeBelow removes a link, never its target, and stays below",
          "[tuner][lifecycle][paths]") {
  fs::path dir = Scratch("tree");
  Touch(dir / "target" / "keep.txt");
  Touch(dir / "root" / "a" / "b" / "file.txt");
  fs::create_directory_symlink(dir / "target", dir / "root" / "a" / "b" / "l");
  fs::create_directory_symlink(dir / "target", dir / "root" / "link");
  fs::path root = dir / "root";
  CHECK(RemoveTreeBelow(root, "link").kind == TreeRemoval::kRemoved);
  CHECK(RemoveTreeBelow(root, "a").kind == TreeRemoval::kRemoved);
  CHECK(fs::exists(dir / "target" / "keep.txt"));
  CHECK_FALSE(fs::exists(root / "a"));
  CHECK_FALSE(fs::is_symlink(root / "link"));
  CHECK(RemoveTreeBelow(root, "a").kind == TreeRemoval::kAbsent);
  CHECK(RemoveTreeBelow(root, "none/x").kind == TreeRemoval::kAbsent);
  for (const char* below : {"", "../target", "x/../../target", "/tmp"}) {
    INFO(below);
    CHECK(RemoveTreeBelow(root, below).kind == TreeRemoval::kFailed);
  }
  CHECK(fs::exists(dir / "target" / "keep.txt"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tuner::testing
