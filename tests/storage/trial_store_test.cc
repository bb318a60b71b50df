#include "storage/trial_store.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "storage/schema.h"
#include "tests/catch.h"
#include "tests/support/fresh_dir.h"

namespace tuner::storage {
namespace {

ExperimentRecord Experiment(const std::string& name, core::Mode mode) {
  ExperimentRecord e;
  e.name = name;
  e.status = core::ExperimentStatus::kRunning;
  e.metric = "acc";
  e.mode = mode;
  e.time_attr = "epoch";
  e.max_t = 9;
  e.config_json = "{}";
  return e;
}

std::unique_ptr<TrialStore> Memory() {
  auto store = TrialStore::Open(":memory:");
  REQUIRE(store.ok());
  return std::move(store).value();
}

TEST_CASE("store round-trips experiments and trials and params", "[storage]") {
  auto store = Memory();
  auto id = store->experiments().Create(Experiment("e1", core::Mode::kMax));
  REQUIRE(id.ok());
  CHECK(store->experiments()
            .Create(Experiment("e1", core::Mode::kMax))
            .error()
            .code == core::ErrorCode::kAlreadyExists);
  core::Params params = {{"lr", 0.001},
                         {"hidden", int64_t{64}},
                         {"opt", std::string("adam")},
                         {"bn", true},
                         {"width", std::string("010")},  // text, as written
                         {"scale", std::string("1e3")},
                         {"gap", std::string(" 7 ")}};
  auto trial = store->trials().Add(id.value(), 0, params);
  REQUIRE(trial.ok());
  REQUIRE(store->trials().MarkRunning(trial.value()).ok());
  REQUIRE(store->Commit().ok());
  auto trials = store->trials().List(id.value());
  REQUIRE(trials.ok());
  REQUIRE(trials.value().size() == 1);
  CHECK(trials.value()[0].params == params);
  CHECK(trials.value()[0].status == core::TrialStatus::kRunning);
  CHECK(trials.value()[0].attempts == 1);
  auto found = store->experiments().Find("e1");
  REQUIRE(found.ok());
  CHECK(found.value()->max_t == 9);
  CHECK_FALSE(store->experiments().Find("nope").value().has_value());
}

TEST_CASE(
    "an experiment's status round-trips, one this build lacks reads "
    "as interrupted",
    "[storage]") {
  std::string path = std::filesystem::temp_directory_path() /
                     ("tuner-status-" + std::to_string(getpid()) + ".db");
  std::filesystem::remove(path);
  {
    auto store = TrialStore::Open(path).value();
    auto id = store->experiments().Create(Experiment("e", core::Mode::kMax));
    REQUIRE(id.ok());
    using S = core::ExperimentStatus;
    for (S status : {S::kFinished, S::kInterrupted, S::kFailed, S::kRunning}) {
      REQUIRE(store->experiments().SetStatus(id.value(), status).ok());
      REQUIRE(store->Commit().ok());
      CHECK(store->experiments().Find("e").value()->status == status);
      CHECK(core::ParseExperimentStatus(core::ToString(status)) == status);
    }
    auto plain = Database::Open(path, false).value();
    REQUIRE(plain->Execute("UPDATE experiments SET status = 'paused-v9'").ok());
    CHECK(store->experiments().Find("e").value()->status == S::kInterrupted);
    CHECK(store->experiments().List().value()[0].status == S::kInterrupted);
  }
  for (auto suffix : {"", "-wal", "-shm"})
    std::filesystem::remove(path + suffix);
}

TEST_CASE("reports update last and best values and NaN is kept", "[storage]") {
  auto store = Memory();
  auto exp =
      store->experiments().Create(Experiment("e", core::Mode::kMin)).value();
  auto t = store->trials().Add(exp, 0, {}).value();
  REQUIRE(store->reports()
              .Append({t, 1, 1.0, 0.5, {{"acc", 0.5}}}, core::Mode::kMin)
              .ok());
  REQUIRE(store->reports()
              .Append({t, 2, 2.0, 0.3, {{"acc", 0.3}}}, core::Mode::kMin)
              .ok());
  REQUIRE(store->reports()
              .Append({t, 3, 3.0, 0.4, {{"acc", 0.4}, {"x", NAN}}},
                      core::Mode::kMin)
              .ok());
  REQUIRE(store->reports()
              .Append({t, 4, std::nullopt, std::nullopt, {{"loss", 1}}},
                      core::Mode::kMin)
              .ok());
  auto trial = store->trials().List(exp).value()[0];
  CHECK(trial.last_time == 3.0);
  CHECK(trial.last_value == 0.4);
  CHECK(trial.best_value == 0.3);
  auto reports = store->reports().List(t).value();
  REQUIRE(reports.size() == 4);
  CHECK(std::isnan(reports[2].metrics[1].second));
  CHECK_FALSE(reports[3].time.has_value());
  CHECK_FALSE(reports[3].value.has_value());

  // A NaN objective (stored as NULL) reads back as NaN, by trial or all.
  REQUIRE(store->reports()
              .Append({t, 5, 4.0, NAN, {{"acc", NAN}}}, core::Mode::kMin)
              .ok());
  REQUIRE(store->Commit().ok());
  auto nan = store->reports().List(t, 4).value();
  REQUIRE(nan.size() == 1);
  REQUIRE(nan[0].value.has_value());
  CHECK(std::isnan(*nan[0].value));
  std::vector<std::optional<double>> values;
  REQUIRE(store->reports()
              .ForEach(exp,
                       [&](const storage::ReportRecord& r) {
                         values.push_back(r.value);
                         return core::Status::Ok();
                       })
              .ok());
  REQUIRE(values.size() == 5);
  CHECK_FALSE(values[3].has_value());
  REQUIRE(values[4].has_value());
  CHECK(std::isnan(*values[4]));
}

// A resume tells the attempts of a relaunched trial apart by these: read
// back as 1, a report of attempt 2 looked like attempt 1's.
TEST_CASE("reports come back with the attempt and stdout offset stored",
          "[storage]") {
  auto store = Memory();
  auto exp =
      store->experiments().Create(Experiment("e", core::Mode::kMax)).value();
  auto t = store->trials().Add(exp, 0, {}).value();
  REQUIRE(store->reports()
              .Append({t, 1, 1.0, 0.5, {}, 1, 40}, core::Mode::kMax)
              .ok());
  REQUIRE(store->reports()
              .Append({t, 2, 2.0, 0.6, {}, 2, 86}, core::Mode::kMax)
              .ok());
  REQUIRE(store->reports()
              .Append({t, 3, 3.0, 0.7, {}, 3, std::nullopt}, core::Mode::kMax)
              .ok());
  auto reports = store->reports().List(t).value();
  REQUIRE(reports.size() == 3);
  CHECK(reports[0].attempt == 1);
  CHECK(reports[0].offset == 40);
  CHECK(reports[1].attempt == 2);
  CHECK(reports[1].offset == 86);
  CHECK(reports[2].attempt == 3);
  CHECK_FALSE(reports[2].offset.has_value());
}

TEST_CASE("best trials are the longest trained first then by value",
          "[storage]") {
  auto store = Memory();
  auto e = Experiment("e", core::Mode::kMax);
  e.id = store->experiments().Create(e).value();
  int64_t index = 0;
  auto add = [&](double time, double value) {
    auto t = store->trials().Add(e.id, index++, {}).value();
    REQUIRE(store->reports().Append({t, 1, time, value, {}}, e.mode).ok());
    return t;
  };
  auto short_good = add(1, 0.99);
  auto long_bad = add(9, 0.5);
  auto long_good = add(9, 0.8);
  store->trials().Add(e.id, 99, {}).value();  // no value: never listed
  auto best = store->trials().Best(e, 10).value();
  REQUIRE(best.size() == 3);
  CHECK(best[0].id == long_good);
  CHECK(best[1].id == long_bad);
  CHECK(best[2].id == short_good);
}

TEST_CASE("a non-finite objective is never a trial's value, in either mode",
          "[storage]") {
  const double inf = std::numeric_limits<double>::infinity();
  for (core::Mode mode : {core::Mode::kMax, core::Mode::kMin}) {
    INFO((mode == core::Mode::kMax ? "max" : "min"));
    auto store = Memory();
    auto e = Experiment("e", mode);
    e.id = store->experiments().Create(e).value();
    int64_t index = 0;
    auto add = [&](std::vector<std::pair<double, double>> reports) {
      auto t = store->trials().Add(e.id, index++, {}).value();
      int64_t seq = 0;
      for (auto [time, value] : reports) {
        REQUIRE(
            store->reports().Append({t, ++seq, time, value, {}}, e.mode).ok());
      }
      return t;
    };
    // A trial reporting inf ranked above a completed 0.9 in max mode; -inf
    // would in min mode; an infinite time above any finite one.
    auto plus_inf = add({{9, inf}});
    auto good = add({{9, 0.9}});
    auto minus_inf = add({{9, -inf}});
    auto nan = add({{9, std::nan("")}});
    auto endless = add({{inf, 0.5}});
    auto short_one = add({{1, 0.1}});
    auto diverged = add({{1, 0.5}, {2, inf}, {3, std::nan("")}});
    auto best = store->trials().Best(e, 10).value();
    std::vector<core::TrialId> ids;
    for (const auto& t : best) ids.push_back(t.id);
    // Those that reported only a non-finite value have none: not listed.
    bool max = mode == core::Mode::kMax;
    CHECK(ids == std::vector<core::TrialId>{good, max ? diverged : short_one,
                                            max ? short_one : diverged,
                                            endless});
    for (auto t : {plus_inf, minus_inf, nan}) {
      auto row = store->trials().Find(t).value();
      CHECK_FALSE(row->last_value);
      CHECK_FALSE(row->best_value);
    }
    // Its reports keep what it printed; its value is its last finite one.
    auto row = store->trials().Find(diverged).value();
    CHECK(row->last_time == 1);
    CHECK(row->last_value == 0.5);
    CHECK(row->best_value == 0.5);
    auto reports = store->reports().List(diverged).value();
    REQUIRE(reports.size() == 3);
    CHECK(reports[1].value == inf);
  }
}

TEST_CASE("decisions and trial ends are stored", "[storage]") {
  auto store = Memory();
  auto exp =
      store->experiments().Create(Experiment("e", core::Mode::kMax)).value();
  auto t = store->trials().Add(exp, 0, {}).value();
  core::RungDecision d{2, 1, 3.0, 0.25, 4, 7, core::RungVerdict::kPause};
  REQUIRE(store->reports().AppendDecision({t, d}).ok());
  REQUIRE(store->trials()
              .Finish(t, {core::TrialStatus::kStopped, 0, "rung 3", 3.0})
              .ok());
  auto decisions = store->reports().ListDecisions(exp).value();
  REQUIRE(decisions.size() == 1);
  CHECK(decisions[0].decision.rank == 4);
  CHECK(decisions[0].decision.n == 7);
  CHECK(decisions[0].decision.verdict == core::RungVerdict::kPause);
  CHECK(decisions[0].decision.bracket == 2);
  auto trial = store->trials().List(exp).value()[0];
  CHECK(trial.status == core::TrialStatus::kStopped);
  CHECK(trial.reason == "rung 3");
  CHECK(trial.last_time == 3.0);
}

TEST_CASE("a trial launched again shows no end of its previous attempt",
          "[storage]") {
  auto store = Memory();
  auto exp =
      store->experiments().Create(Experiment("e", core::Mode::kMax)).value();
  auto t = store->trials().Add(exp, 0, {}).value();
  REQUIRE(store->trials().MarkRunning(t).ok());
  REQUIRE(store->trials()
              .Finish(t, {core::TrialStatus::kPending, -15, "interrupted", 2.0})
              .ok());
  REQUIRE(store->trials().MarkRunning(t).ok());
  auto trial = store->trials().List(exp).value()[0];
  CHECK(trial.status == core::TrialStatus::kRunning);
  CHECK(trial.attempts == 2);
  CHECK(trial.reason.empty());
  CHECK_FALSE(trial.exit_code);
  CHECK(trial.last_time == 2.0);
}

TEST_CASE(
    "a trial added and launched in one batch is inserted running, with the "
    "id SQLite would give it, whichever writer added the last",
    "[storage]") {
  auto dir = testing::FreshDir("store-added");
  std::string path = (dir / "t.db").string();
  auto a = TrialStore::Open(path).value();
  auto b = TrialStore::Open(path).value();
  a->SetTimeSource([] { return 100.0; });
  auto e = a->experiments().Create(Experiment("e", core::Mode::kMax)).value();
  auto launched = a->trials().Add(e, 0, {{"lr", 0.1}}).value();
  REQUIRE(a->trials().MarkRunning(launched).ok());
  auto waiting = a->trials().Add(e, 1, {}).value();
  REQUIRE(a->Commit().ok());
  CHECK(waiting == launched + 1);
  auto reader = TrialStore::OpenReadOnly(path).value();
  auto row = reader->trials().Find(launched).value().value();
  CHECK(row.status == core::TrialStatus::kRunning);
  CHECK(row.attempts == 1);
  CHECK(row.started_at == 100.0);
  CHECK(row.params.size() == 1);
  row = reader->trials().Find(waiting).value().value();
  CHECK(row.status == core::TrialStatus::kPending);
  CHECK(row.attempts == 0);
  CHECK_FALSE(row.started_at);
  // Another writer's trial takes the next id; this writer reads it.
  auto other = b->trials().Add(e, 2, {}).value();
  REQUIRE(b->Commit().ok());
  CHECK(other == waiting + 1);
  CHECK(a->trials().Add(e, 3, {}).value() == other + 1);
  REQUIRE(a->Commit().ok());
  // An index taken fails the batch at its commit: none of it is written.
  auto taken = a->trials().Add(e, 0, {}).value();
  REQUIRE(a->trials().MarkRunning(taken).ok());
  auto fine = a->trials().Add(e, 9, {}).value();
  CHECK_FALSE(a->Commit().ok());
  CHECK_FALSE(reader->trials().Find(fine).value());
  CHECK(reader->trials().List(e).value().size() == 4);
  a.reset();
  b.reset();
  reader.reset();
  std::filesystem::remove_all(dir);
}

TEST_CASE(
    "a trial's end is when it exited if that is known and earlier, never "
    "before its start",
    "[storage]") {
  auto store = Memory();
  double now = 100;
  store->SetTimeSource([&now] { return now; });
  auto exp =
      store->experiments().Create(Experiment("e", core::Mode::kMax)).value();
  int index = 0;
  auto end_with = [&](std::optional<double> exited_at) {
    auto t = store->trials().Add(exp, index++, {}).value();
    now = 100;
    REQUIRE(store->trials().MarkRunning(t).ok());
    now = 200;
    storage::TrialEnd end{core::TrialStatus::kCompleted, 0, "", 1.0};
    end.exited_at = exited_at;
    REQUIRE(store->trials().Finish(t, end).ok());
    REQUIRE(store->Commit().ok());
    return store->trials().Find(t).value()->ended_at;
  };
  CHECK(end_with(std::nullopt) == 200);
  CHECK(end_with(150) == 150);
  CHECK(end_with(250) == 200);  // a clock ahead of ours: ours
  CHECK(end_with(50) == 100);   // before it started: its start

  // Paused at 120, ended at 300 without running again (never promoted).
  auto paused = store->trials().Add(exp, index++, {}).value();
  now = 100;
  REQUIRE(store->trials().MarkRunning(paused).ok());
  now = 120;
  REQUIRE(store->trials()
              .Finish(paused, {core::TrialStatus::kPaused, -15, "", 1.0})
              .ok());
  now = 300;
  REQUIRE(store->trials()
              .Finish(paused, {core::TrialStatus::kStopped, std::nullopt,
                               "not promoted", 1.0})
              .ok());
  REQUIRE(store->Commit().ok());
  auto stopped = store->trials().Find(paused).value();
  CHECK(stopped->ended_at == 120);
  CHECK(stopped->exit_code == -15);
}

TEST_CASE("a committed write is visible to a reader in WAL mode", "[storage]") {
  std::string path = std::filesystem::temp_directory_path() /
                     ("tuner-store-" + std::to_string(getpid()) + ".db");
  std::filesystem::remove(path);
  {
    auto writer = TrialStore::Open(path).value();
    auto exp =
        writer->experiments().Create(Experiment("e", core::Mode::kMax)).value();
    REQUIRE(writer->Commit().ok());
    auto reader = TrialStore::OpenReadOnly(path).value();
    writer->trials().Add(exp, 0, {}).value();
    CHECK(reader->trials().List(exp).value().empty());  // not committed yet
    REQUIRE(writer->Commit().ok());
    CHECK(reader->trials().List(exp).value().size() == 1);
    auto plain = Database::Open(path, true).value();
    auto mode = plain->Prepare("PRAGMA journal_mode");
    REQUIRE(mode.value().Step().value());
    CHECK(mode.value().Text(0) == "wal");
  }
  CHECK_FALSE(TrialStore::OpenReadOnly(path + ".missing").ok());
  for (auto suffix : {"", "-wal", "-shm"})
    std::filesystem::remove(path + suffix);
}

TEST_CASE("held commits reach the file every Nth batch and when flushed",
          "[storage]") {
  std::string path = std::filesystem::temp_directory_path() /
                     ("tuner-held-" + std::to_string(getpid()) + ".db");
  std::filesystem::remove(path);
  {
    auto writer = TrialStore::Open(path).value();
    writer->HoldCommits(3);
    auto exp =
        writer->experiments().Create(Experiment("e", core::Mode::kMax)).value();
    auto reader = TrialStore::OpenReadOnly(path).value();
    CHECK(writer->InTransaction());
    REQUIRE(writer->Commit().ok());  // batch 1: held
    CHECK_FALSE(writer->InTransaction());
    CHECK(reader->experiments().List().value().empty());
    writer->trials().Add(exp, 0, {}).value();  // batch 2 goes on the held one
    CHECK(writer->InTransaction());
    REQUIRE(writer->Commit().ok());  // held
    CHECK(reader->experiments().List().value().empty());
    writer->trials().Add(exp, 1, {}).value();
    REQUIRE(writer->Commit().ok());  // the 3rd: all three committed
    CHECK(reader->trials().List(exp).value().size() == 2);
    writer->trials().Add(exp, 2, {}).value();
    REQUIRE(writer->Commit().ok());  // held again
    CHECK(reader->trials().List(exp).value().size() == 2);
    REQUIRE(writer->FlushHeld().ok());
    CHECK(reader->trials().List(exp).value().size() == 3);
    writer->trials().Add(exp, 3, {}).value();
    REQUIRE(writer->Commit().ok());  // held: the destructor flushes it
  }
  auto after = TrialStore::OpenReadOnly(path).value();
  auto experiment = after->experiments().Find("e").value();
  REQUIRE(experiment);
  CHECK(after->trials().List(experiment->id).value().size() == 4);
  for (auto suffix : {"", "-wal", "-shm"})
    std::filesystem::remove(path + suffix);
}

TEST_CASE("migrations set the schema version and refuse newer ones",
          "[storage]") {
  auto db = Database::Open(":memory:", false).value();
  REQUIRE(Migrate(*db).ok());
  auto v = db->Prepare("PRAGMA user_version").value();
  REQUIRE(v.Step().value());
  CHECK(v.Int(0) == CurrentSchemaVersion());
  REQUIRE(Migrate(*db).ok());  // idempotent
  REQUIRE(db->Execute("PRAGMA user_version = 999").ok());
  CHECK_FALSE(Migrate(*db).ok());
}

TEST_CASE("device leases are stored with their span", "[storage]") {
  auto store = Memory();
  auto experiment =
      store->experiments().Create(Experiment("e", core::Mode::kMax));
  REQUIRE(experiment.ok());
  auto trial = store->trials().Add(experiment.value(), 0, {{"lr", 0.1}});
  REQUIRE(trial.ok());
  LeaseRecord lease;
  lease.trial = trial.value();
  lease.attempt = 1;
  lease.kind = "habana";
  lease.devices = "4,5";
  lease.cpus = "48-71";
  auto id = store->leases().Open(lease);
  REQUIRE(id.ok());
  REQUIRE(store->Commit().ok());
  auto held = store->leases().List(experiment.value());
  REQUIRE(held.ok());
  REQUIRE(held.value().size() == 1);
  CHECK(held.value()[0].devices == "4,5");
  CHECK(held.value()[0].cpus == "48-71");
  CHECK_FALSE(held.value()[0].released_at.has_value());
  REQUIRE(store->leases().Close(id.value()).ok());
  auto done = store->leases().List(experiment.value());
  REQUIRE(done.ok());
  REQUIRE(done.value()[0].released_at.has_value());
  CHECK(*done.value()[0].released_at >= done.value()[0].acquired_at);
}

// Makes a database's files unwritable while it is open: chattr +i where
// the file system and the user allow it (root: chmod would not stop its
// writes), else chmod 0444 for a user who is not root. Undone on exit.
class ReadOnlyFiles {
 public:
  explicit ReadOnlyFiles(std::vector<std::string> files)
      : files_(std::move(files)) {
    std::string list;
    for (const auto& f : files_) list += " '" + f + "'";
    immutable_ =
        std::system(("chattr +i" + list + " 2>/dev/null").c_str()) == 0;
    if (immutable_) {
      done_ = true;
      undo_ = "chattr -i" + list;
    } else if (geteuid() != 0) {
      for (const auto& f : files_) chmod(f.c_str(), 0444);
      done_ = true;
    }
  }
  ~ReadOnlyFiles() {
    if (immutable_) (void)!std::system(undo_.c_str());
    for (const auto& f : files_) chmod(f.c_str(), 0644);
  }
  bool done() const { return done_; }
  // Writes through open descriptors fail too (chattr +i, not chmod).
  bool immutable() const { return immutable_; }

 private:
  std::vector<std::string> files_;
  bool immutable_ = false;
  bool done_ = false;
  std::string undo_;
};

TEST_CASE(
    "database files made read-only under a connection: an error "
    "naming them, no crash",
    "[storage][process]") {
  namespace fs = std::filesystem;
  fs::path dir =
      fs::temp_directory_path() / ("read-only-db-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string db = (dir / "tuner.db").string();
  {
    auto store = TrialStore::Open(db).value();
    auto exp = store->experiments().Create(Experiment("e", core::Mode::kMax));
    REQUIRE(exp.ok());
    REQUIRE(store->Commit().ok());
    auto reader = TrialStore::OpenReadOnly(db).value();
    REQUIRE(reader->experiments().List().ok());
    REQUIRE(fs::exists(db + "-shm"));
    ReadOnlyFiles read_only({db, db + "-wal", db + "-shm"});
    if (!read_only.done()) {
      WARN("neither chattr +i nor a non-root chmod: not tested");
    } else {
      // Before: SIGBUS (SQLite writes its mapping of the -shm file).
      auto trial = store->trials().Add(exp.value(), 0, {});
      REQUIRE_FALSE(trial.ok());
      INFO(trial.message());
      CHECK(trial.message().find("database " + db + ": " + db) !=
            std::string::npos);
      CHECK(trial.message().find("no longer writable") != std::string::npos);
      CHECK(trial.message().find('\n') == std::string::npos);
      CHECK_FALSE(reader->experiments().List().ok());
      store.reset();  // closing does not checkpoint into the files either
      reader.reset();
      // A new writer is refused at once.
      auto again = TrialStore::Open(db);
      REQUIRE_FALSE(again.ok());
      CHECK(again.message().find("is not writable") != std::string::npos);
    }
  }
  fs::remove_all(dir);
}

TEST_CASE(
    "the database and -wal files made immutable under a writer: its next "
    "commit fails with an error naming them, and so does what follows",
    "[storage][process]") {
  namespace fs = std::filesystem;
  auto dir = testing::FreshDir("immutable-db");
  std::string db = (dir / "tuner.db").string();
  {
    auto store = TrialStore::Open(db).value();
    auto exp = store->experiments().Create(Experiment("e", core::Mode::kMax));
    REQUIRE(exp.ok());
    REQUIRE(store->Commit().ok());
    ReadOnlyFiles read_only({db, db + "-wal"});
    if (!read_only.immutable()) {
      WARN("no chattr +i here: not tested");
    } else {
      // The -shm file is fine: the batch begins, and its commit's writes
      // fail.
      REQUIRE(store->trials().Add(exp.value(), 0, {}).ok());
      core::Status committed = store->Commit();
      REQUIRE_FALSE(committed.ok());
      INFO(committed.message());
      CHECK(committed.message().find("database " + db + ": " + db) !=
            std::string::npos);
      CHECK(committed.message().find("no longer writable") !=
            std::string::npos);
      auto next = store->trials().Add(exp.value(), 1, {});
      REQUIRE_FALSE(next.ok());
      CHECK(next.message().find("no longer writable") != std::string::npos);
      store.reset();  // closing does not checkpoint into the files either
    }
  }
  fs::remove_all(dir);
}

TEST_CASE(
    "the database file alone made immutable under a writer: the checkpoint "
    "that fails stops its writes with an error naming it",
    "[storage][process]") {
  namespace fs = std::filesystem;
  auto dir = testing::FreshDir("immutable-main");
  std::string db = (dir / "tuner.db").string();
  {
    auto store = TrialStore::Open(db).value();
    auto exp = store->experiments().Create(Experiment("e", core::Mode::kMax));
    REQUIRE(exp.ok());
    REQUIRE(store->Commit().ok());
    ReadOnlyFiles read_only({db});
    if (!read_only.immutable()) {
      WARN("no chattr +i here: not tested");
    } else {
      // In WAL mode only a checkpoint writes the database file: one runs
      // once the WAL holds 1,000 pages, a few hundred commits from here.
      core::Status written = core::Status::Ok();
      int64_t commits = 0;
      for (; written.ok() && commits < 5000; ++commits) {
        auto t = store->trials().Add(exp.value(), commits,
                                     {{"note", std::string(3000, 'x')}});
        written = t.ok() ? store->Commit() : t.status();
      }
      INFO(commits << " commits: " << written.message());
      REQUIRE_FALSE(written.ok());
      CHECK(written.message().find(db + " is no longer writable") !=
            std::string::npos);
      store.reset();
    }
  }
  fs::remove_all(dir);
}

TEST_CASE(
    "best by the best value ranks a value that is no number, and a count "
    "is capped, where a row was written by hand",
    "[storage]") {
  auto dir = testing::FreshDir("store-best-typed");
  std::string path = (dir / "t.db").string();
  auto store = TrialStore::Open(path).value();
  auto record = Experiment("e", core::Mode::kMax);
  record.id = store->experiments().Create(record).value();
  std::vector<core::TrialId> ids;
  for (int64_t i = 0; i < 4; ++i) {
    ids.push_back(store->trials().Add(record.id, i, {}).value());
    REQUIRE(store->reports()
                .Append({ids[i], 1, 1.0, 0.1 * (i + 1), {}}, core::Mode::kMax)
                .ok());
  }
  REQUIRE(store->Commit().ok());
  {
    auto db = Database::Open(path, false).value();
    REQUIRE(db->Execute("UPDATE trials SET best_value = 'NaN' WHERE id = " +
                        std::to_string(ids[0]) +
                        "; UPDATE trials SET best_value = x'00ff' WHERE id = " +
                        std::to_string(ids[1]) +
                        "; UPDATE trial_counts SET n = 9223372036854775807 "
                        "WHERE status = 'pending'")
                .ok());
  }
  // A count written by hand is capped: sums of counts cannot overflow.
  auto counts = store->trials().Count(record.id);
  REQUIRE(counts.ok());
  CHECK(counts.value()[core::TrialStatus::kPending] == int64_t{1} << 53);
  auto best = store->trials().Best(record, 10, BestBy::kBest);
  REQUIRE(best.ok());
  std::vector<core::TrialId> order;
  for (const auto& t : best.value()) order.push_back(t.id);
  REQUIRE(order.size() == 4);
  CHECK(order[0] == ids[3]);
  CHECK(order[1] == ids[2]);
  store.reset();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tuner::storage
