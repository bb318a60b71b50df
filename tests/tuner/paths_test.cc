// Where trials live and how relative paths in a config resolve.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/catch.h"
#include "tests/support/tuner_cli.h"
#include "tuner/base/tuner_lock.h"
#include "tuner/config/config_loader.h"
#include "tuner/config/database_place.h"
#include "tuner/config/stored_config.h"

namespace tuner {
namespace {

namespace fs = std::filesystem;

std::string Sweep(const std::string& name, const std::string& extra = "") {
  return "name: " + name + R"(
command: run.sh --lr {lr}
metric: score
mode: max
search_space: {lr: {type: uniform, low: 0.1, high: 0.2}}
num_trials: 1
)" + extra;
}

TEST_CASE("trial directories are scoped by database and experiment",
          "[tuner][paths]") {
  CHECK(TrialsRootFor("/data/tuner.db", "lr") == "/data/tuner.db.trials/lr");
  CHECK(TrialsRootFor("/data/other.db", "lr") == "/data/other.db.trials/lr");
  CHECK(TrialsRootFor("/data/runs", "lr") == "/data/runs.trials/lr");
  // Databases that differ only in their extension never share a root.
  CHECK(TrialsRootFor("/data/x.sqlite", "lr") !=
        TrialsRootFor("/data/x.db", "lr"));
  CHECK(TrialsRootFor("/data/x", "lr") != TrialsRootFor("/data/x.db", "lr"));
  // Found from where the database is now, whatever the stored root says
  // (it was moved, copied, or crafted); one stored without a trials root
  // has the shared trials/ dir.
  auto config = LoadConfigText(Sweep("lr"), "x.yaml", "/inv", "/inv");
  REQUIRE(config.ok());
  std::string stored = StoredConfigJson(
      config.value(), Sweep("lr"), "/cfg/x.yaml", "/inv", "/keep/tuner.db");
  CHECK(ExperimentTrialsRoot(stored, "/data/tuner.db", "lr") ==
        "/data/tuner.db.trials/lr");
  CHECK(ExperimentTrialsRoot(stored, "/moved/x.db", "lr") ==
        "/moved/x.db.trials/lr");
  auto old = nlohmann::json::parse(stored);
  old.erase("trials_root");
  old.erase("base");
  CHECK(ExperimentTrialsRoot(old.dump(), "/data/tuner.db", "lr") ==
        "/data/trials");
  // A name is one safe path component.
  for (std::string bad : {"..", ".", "a/b", ".hidden", "a b"}) {
    INFO(bad);
    CHECK_FALSE(LoadConfigText(Sweep(bad), "x.yaml", "/inv", "/inv").ok());
  }
}

TEST_CASE(
    "relative paths resolve against the invocation directory, and a resume "
    "uses the stored ones",
    "[tuner][paths]") {
  auto plain = LoadConfigText(Sweep("a"), "/cfg/x.yaml", "/inv", "/inv");
  REQUIRE(plain.ok());
  CHECK(plain.value().workdir == "/inv");
  auto sub = LoadConfigText(Sweep("a", "workdir: sub/dir\n"), "/cfg/x.yaml",
                            "/inv", "/inv");
  REQUIRE(sub.ok());
  CHECK(sub.value().workdir == "/inv/sub/dir");
  // Stored, then read back elsewhere: the same paths, not the config
  // file's folder nor the reader's directory.
  std::string yaml = Sweep("a", "workdir: sub\n");
  auto config = LoadConfigText(yaml, "/cfg/x.yaml", "/inv", "/inv");
  REQUIRE(config.ok());
  std::string stored = StoredConfigJson(config.value(), yaml, "/cfg/x.yaml",
                                        "/inv", "/inv/tuner.db");
  auto again = LoadStoredConfig(stored, "");
  REQUIRE(again.ok());
  CHECK(again.value().workdir == "/inv/sub");
  // A stored config without "base": its workdir as stored.
  auto old = nlohmann::json::parse(stored);
  old.erase("base");
  old["workdir"] = "/cfg/sub";
  auto legacy = LoadStoredConfig(old.dump(), "");
  REQUIRE(legacy.ok());
  CHECK(legacy.value().workdir == "/cfg/sub");
}

TEST_CASE(
    "paths inside the database's folder follow a copied or moved database",
    "[tuner][paths]") {
  std::string yaml = Sweep("a",
                           "workdir: sub\ncheckpoints: {dir: "
                           "\"/proj/ck/{trial_id}\"}\n");
  auto config = LoadConfigText(yaml, "/proj/x.yaml", "/proj", "/proj");
  REQUIRE(config.ok());
  std::string stored = StoredConfigJson(config.value(), yaml, "/proj/x.yaml",
                                        "/proj", "/proj/tuner.db");
  auto copied = LoadStoredConfig(stored, "/copy/tuner.db");
  REQUIRE(copied.ok());
  CHECK(copied.value().workdir == "/copy/sub");
  CHECK(copied.value().checkpoints.dir == "/copy/ck/{trial_id}");
  auto as_stored = LoadStoredConfig(stored, "");
  REQUIRE(as_stored.ok());
  CHECK(as_stored.value().workdir == "/proj/sub");
  // Outside the database's folder: as stored, wherever it is.
  std::string apart = StoredConfigJson(config.value(), yaml, "/proj/x.yaml",
                                       "/proj", "/proj/db/tuner.db");
  auto outside = LoadStoredConfig(apart, "/copy/tuner.db");
  REQUIRE(outside.ok());
  CHECK(outside.value().workdir == "/proj/sub");
  CHECK(outside.value().checkpoints.dir == "/proj/ck/{trial_id}");
  // The database in a subfolder of the project: the project moved.
  std::string sub = StoredConfigJson(config.value(), yaml, "/proj/x.yaml",
                                     "/proj", "/proj/db/tuner.db");
  auto nested = LoadStoredConfig(sub, "/copy/db/tuner.db");
  REQUIRE(nested.ok());
  CHECK(nested.value().workdir == "/copy/sub");
  CHECK(nested.value().checkpoints.dir == "/copy/ck/{trial_id}");
  auto alone = LoadStoredConfig(sub, "/else/tuner.db");  // the .db alone
  REQUIRE(alone.ok());
  CHECK(alone.value().workdir == "/proj/sub");
  CHECK(Rebased("/projector/a", "/proj", "/copy") == "/projector/a");
  CHECK(Rebased("/proj", "/proj/", "/copy") == "/copy");
  CHECK(Rebased("rel/a", "/proj", "/copy") == "rel/a");
}

TEST_CASE("a database file is the recorded one moved, never a copy or backup",
          "[tuner][paths]") {
  fs::path dir =
      fs::temp_directory_path() / ("tuner-place-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string db = (dir / "tuner.db").string();
  std::ofstream(db) << "rows";
  std::string id = PlaceOf(db).file_id;
  REQUIRE_FALSE(id.empty());
  CHECK(IsRecordedFile(id, db));
  fs::rename(db, dir / "moved.db");
  CHECK(IsRecordedFile(id, (dir / "moved.db").string()));
  fs::copy_file(dir / "moved.db", dir / "copy.db");
  CHECK_FALSE(IsRecordedFile(id, (dir / "copy.db").string()));
  // Restored in place: a new file, whatever inode it is given.
  fs::copy_file(dir / "moved.db", dir / "bak");
  fs::remove(dir / "moved.db");
  fs::copy_file(dir / "bak", dir / "moved.db");
  CHECK_FALSE(IsRecordedFile(id, (dir / "moved.db").string()));
  CHECK_FALSE(IsRecordedFile("", (dir / "moved.db").string()));
  fs::remove_all(dir);
}

TEST_CASE(
    "two databases in one folder keep the trial directories of experiments "
    "with the same name and trial ids apart",
    "[tuner][paths][cli][process]") {
  fs::path dir =
      fs::temp_directory_path() / ("tuner-paths-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (std::string which : {"one", "two"}) {
    std::ofstream(dir / (which + ".yaml"))
        << R"(name: same
shell: true
command: echo marker-)"
        << which << "; exec " TOY_TRAINER R"( --lr {lr} --epochs 2
metric: score
mode: max
time_attr: epoch
search_space: {lr: {type: uniform, low: 0.1, high: 0.2}}
num_trials: 2
devices: {kind: cpu, slots: 1}
)";
    auto run =
        testing::RunTuner(dir, "run " + which + ".yaml --db " + which + ".db");
    INFO(run.err);
    REQUIRE(run.code == 0);
  }
  for (std::string which : {"one", "two"}) {
    for (int trial : {1, 2}) {
      fs::path trial_dir =
          dir / (which + ".db.trials") / "same" / std::to_string(trial);
      INFO(trial_dir);
      std::string log = testing::ReadFile(trial_dir / "stdout.log");
      CHECK(log.find("marker-" + which) != std::string::npos);
      CHECK(log.find(which == "one" ? "marker-two" : "marker-one") ==
            std::string::npos);
      CHECK(fs::exists(trial_dir / "params.json"));
    }
  }
  CHECK_FALSE(fs::exists(dir / "trials"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tuner
