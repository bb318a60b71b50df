// The queries of `tuner best` and `tuner status` at scale: per-status
// counts kept by the writer (no scan), best trials read from an index (no
// sort), the streaming reads, and databases from before migration 8.
#include <unistd.h>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "storage/best_order.h"
#include "storage/schema.h"
#include "storage/trial_store.h"
#include "tests/catch.h"
#include "tests/support/experiment_record.h"

namespace tuner::storage {
namespace {

using core::TrialStatus;

ExperimentRecord Experiment(const std::string& name, core::Mode mode) {
  return testing::ExperimentNamed(name, mode);
}

class TempDb {
 public:
  TempDb()
      : path_((std::filesystem::temp_directory_path() /
               ("tuner-query-index-" + std::to_string(getpid()) + ".db"))
                  .string()) {
    Remove();
  }
  ~TempDb() { Remove(); }
  const std::string& path() const { return path_; }

 private:
  void Remove() {
    for (auto suffix : {"", "-wal", "-shm"})
      std::filesystem::remove(path_ + suffix);
  }
  std::string path_;
};

// SQL that makes a migrated database what schema 12 left: every trial in
// the best index, no leaderboard.
constexpr const char* kUndoBoard =
    "DROP INDEX trials_board; "
    "ALTER TABLE trials DROP COLUMN contender; "
    "ALTER TABLE experiments DROP COLUMN board_complete; "
    "ALTER TABLE experiments DROP COLUMN board_size; ";

// The counts by a scan of the trials, what trial_counts must agree with.
std::map<TrialStatus, int64_t> Recount(TrialStore& store, ExperimentId e) {
  std::map<TrialStatus, int64_t> out;
  auto trials = store.trials().List(e);
  REQUIRE(trials.ok());
  for (const auto& t : trials.value()) ++out[t.status];
  return out;
}

// An experiment with trials in every status; returns its id.
ExperimentId Populate(TrialStore& store, const std::string& name) {
  auto e = store.experiments().Create(Experiment(name, core::Mode::kMax));
  REQUIRE(e.ok());
  for (int64_t i = 0; i < 12; ++i) {
    auto t = store.trials().Add(e.value(), i, {{"lr", 0.1 * i}});
    REQUIRE(t.ok());
    if (i % 4 == 0) continue;  // pending
    REQUIRE(store.trials().MarkRunning(t.value()).ok());
    if (i % 4 == 1) continue;  // running
    auto status = i % 4 == 2 ? TrialStatus::kCompleted : TrialStatus::kFailed;
    REQUIRE(
        store.trials().Finish(t.value(), {status, 0, "", std::nullopt}).ok());
  }
  REQUIRE(store.Commit().ok());
  return e.value();
}

TEST_CASE("status counts are kept by the store, right through every change",
          "[storage][query]") {
  auto store = TrialStore::Open(":memory:").value();
  ExperimentId a = Populate(*store, "a");
  ExperimentId b = Populate(*store, "b");
  auto counts = store->trials().Count(a);
  REQUIRE(counts.ok());
  CHECK(counts.value() == Recount(*store, a));
  CHECK(counts.value().at(TrialStatus::kPending) == 3);
  CHECK(counts.value().at(TrialStatus::kRunning) == 3);
  CHECK(counts.value().at(TrialStatus::kCompleted) == 3);
  CHECK(counts.value().at(TrialStatus::kFailed) == 3);
  // A retried trial goes back to running, then ends once more.
  auto trials = store->trials().List(b).value();
  REQUIRE(store->trials().MarkRunning(trials[3].id).ok());
  REQUIRE(
      store->trials()
          .Finish(trials[3].id, {TrialStatus::kStopped, 0, "", std::nullopt})
          .ok());
  REQUIRE(store->Commit().ok());
  CHECK(store->trials().Count(b).value() == Recount(*store, b));
  CHECK(store->trials().Count(b).value().count(TrialStatus::kFailed) == 1);
  CHECK(store->trials().Count(a).value() == Recount(*store, a));
}

TEST_CASE(
    "status counts change with their rows' commit, whichever writer made it",
    "[storage][query]") {
  TempDb file;
  auto a = TrialStore::Open(file.path()).value();
  auto b = TrialStore::Open(file.path()).value();
  auto reader = TrialStore::OpenReadOnly(file.path()).value();
  ExperimentId e = Populate(*a, "e");
  auto trials = a->trials().List(e).value();
  // Uncommitted changes are nobody else's, counts included.
  REQUIRE(a->trials().MarkRunning(trials[0].id).ok());
  REQUIRE(a->trials().Add(e, 12, {}).ok());
  CHECK(a->trials().Count(e).value() == Recount(*a, e));
  CHECK(reader->trials().Count(e).value() == Recount(*reader, e));
  CHECK(reader->trials().Count(e).value().at(TrialStatus::kPending) == 3);
  REQUIRE(a->Commit().ok());
  CHECK(reader->trials().Count(e).value().at(TrialStatus::kPending) == 3);
  CHECK(reader->trials().Count(e).value().at(TrialStatus::kRunning) == 4);
  // Another writer's changes add to them.
  REQUIRE(
      b->trials()
          .Finish(trials[0].id, {TrialStatus::kCompleted, 0, "", std::nullopt})
          .ok());
  REQUIRE(b->Commit().ok());
  CHECK(reader->trials().Count(e).value() == Recount(*reader, e));
  CHECK(a->trials().Count(e).value() == Recount(*a, e));
  // A writer reads a row's status again in its next transaction: another
  // writer may have changed it meanwhile (b ended the trial a launched).
  REQUIRE(a->trials().MarkRunning(trials[0].id).ok());
  REQUIRE(a->Commit().ok());
  CHECK(reader->trials().Count(e).value() == Recount(*reader, e));
  // A deleted experiment leaves no count behind.
  REQUIRE(a->DeleteExperiment(e, "e", {}).ok());
  REQUIRE(a->Commit().ok());
  CHECK(reader->trials().Count(e).value().empty());
}

TEST_CASE(
    "status counts of many experiments changed in one transaction are all "
    "written",
    "[storage][query]") {
  auto store = TrialStore::Open(":memory:").value();
  // More experiments than one statement writes the counts of.
  std::vector<ExperimentId> experiments;
  for (int i = 0; i < 40; ++i) {
    auto e = store->experiments().Create(
        Experiment("e" + std::to_string(i), core::Mode::kMax));
    REQUIRE(e.ok());
    experiments.push_back(e.value());
  }
  REQUIRE(store->Commit().ok());
  for (size_t i = 0; i < experiments.size(); ++i) {
    for (size_t n = 0; n <= i % 3; ++n) {
      auto t = store->trials().Add(experiments[i], static_cast<int64_t>(n), {});
      REQUIRE(t.ok());
      if (n == 1) REQUIRE(store->trials().MarkRunning(t.value()).ok());
    }
  }
  REQUIRE(store->Commit().ok());
  for (ExperimentId e : experiments) {
    INFO("experiment " << e);
    CHECK(store->trials().Count(e).value() == Recount(*store, e));
  }
}

TEST_CASE(
    "a database of schema 13 counts running trials by their row until a "
    "writer migrates it to the count of all",
    "[storage][query]") {
  TempDb file;
  ExperimentId e = 0;
  {
    auto store = TrialStore::Open(file.path()).value();
    e = Populate(*store, "old");
  }
  {
    // What schema 13 kept: a row per status, running included.
    auto db = Database::Open(file.path(), false).value();
    REQUIRE(db->Execute("DELETE FROM trial_counts; "
                        "INSERT INTO trial_counts SELECT experiment_id, "
                        "status, COUNT(*) FROM trials GROUP BY experiment_id, "
                        "status; "
                        "PRAGMA user_version = 13")
                .ok());
  }
  auto counts_of = [&](const std::string& status) {
    auto db = Database::Open(file.path(), true).value();
    auto row =
        db->Prepare("SELECT n FROM trial_counts WHERE status = ?1").value();
    row.Bind(1, status);
    return row.Step().value() ? std::optional<int64_t>(row.Int(0))
                              : std::nullopt;
  };
  {
    auto reader = TrialStore::OpenReadOnly(file.path()).value();
    CHECK(reader->trials().Count(e).value() == Recount(*reader, e));
    CHECK(reader->trials().Count(e).value().at(TrialStatus::kRunning) == 3);
  }
  auto store = TrialStore::Open(file.path()).value();
  CHECK(store->trials().Count(e).value() == Recount(*store, e));
  CHECK(counts_of("running") == std::nullopt);
  CHECK(counts_of("all") == 12);
  // A launch and an end change the counts as before.
  auto t = store->trials().Add(e, 12, {}).value();
  REQUIRE(store->trials().MarkRunning(t).ok());
  REQUIRE(store->Commit().ok());
  CHECK(store->trials().Count(e).value().at(TrialStatus::kRunning) == 4);
  REQUIRE(store->trials()
              .Finish(t, {TrialStatus::kStopped, 0, "", std::nullopt})
              .ok());
  REQUIRE(store->Commit().ok());
  CHECK(store->trials().Count(e).value() == Recount(*store, e));
  CHECK(counts_of("all") == 13);
}

TEST_CASE("a status this build does not know is not counted as running",
          "[storage][query]") {
  TempDb file;
  ExperimentId e = 0;
  {
    auto store = TrialStore::Open(file.path()).value();
    e = Populate(*store, "e");
    // A later version's status, or a row written by hand.
    auto db = Database::Open(file.path(), false).value();
    REQUIRE(db->Execute("UPDATE trials SET status = 'cancelled' WHERE "
                        "status = 'completed'; UPDATE trial_counts SET "
                        "status = 'cancelled' WHERE status = 'completed'")
                .ok());
  }
  auto reader = TrialStore::OpenReadOnly(file.path()).value();
  auto counts = reader->trials().Count(e).value();
  CHECK(counts.at(TrialStatus::kRunning) == 3);
  CHECK(counts.at(TrialStatus::kPending) == 3);
  CHECK(counts.count(TrialStatus::kCompleted) == 0);
}

TEST_CASE("a database from before migration 8 gets its counts and indexes",
          "[storage][query]") {
  TempDb file;
  {
    auto store = TrialStore::Open(file.path()).value();
    Populate(*store, "old");
  }
  {
    // Make it what version 7 left: no counts, no best indexes.
    auto db = Database::Open(file.path(), false).value();
    REQUIRE(db->Execute(std::string(kUndoBoard) +
                        "DROP TABLE trial_counts; "
                        // and what migration 12 added
                        "ALTER TABLE trials DROP COLUMN last_key; "
                        "DROP TABLE reserve; "
                        // and what migration 9 added after it
                        "ALTER TABLE leases DROP COLUMN node; "
                        "ALTER TABLE experiments DROP COLUMN cluster_job; "
                        "ALTER TABLE experiments DROP COLUMN cluster_booked; "
                        // and migration 10
                        "ALTER TABLE trials DROP COLUMN exited_at; "
                        "PRAGMA user_version = 7")
                .ok());
  }
  SECTION("read-only, it is counted the old way") {
    auto reader = TrialStore::OpenReadOnly(file.path()).value();
    auto e = reader->experiments().Find("old").value();
    REQUIRE(e);
    CHECK(reader->trials().Count(e->id).value() == Recount(*reader, e->id));
    CHECK(reader->trials().Best(*e, 1).ok());
    auto trials = reader->trials().List(e->id);
    INFO(trials.status().message());
    CHECK(trials.ok());
  }
  SECTION("the next writer migrates it, counts included") {
    auto store = TrialStore::Open(file.path()).value();
    auto e = store->experiments().Find("old").value();
    REQUIRE(e);
    auto counts = store->trials().Count(e->id);
    REQUIRE(counts.ok());
    CHECK(counts.value() == Recount(*store, e->id));
    CHECK(counts.value().at(TrialStatus::kRunning) == 3);
  }
}

// Ids of the experiment's trials, best first by the last value.
std::vector<core::TrialId> BestIds(TrialStore& store, const std::string& name) {
  auto e = store.experiments().Find(name).value();
  REQUIRE(e);
  std::vector<core::TrialId> ids;
  auto best = store.trials().Best(*e, 100);
  REQUIRE(best.ok());
  for (const auto& t : best.value()) ids.push_back(t.id);
  return ids;
}

TEST_CASE(
    "a database of schema 11 ranks its best trials the same once migrated",
    "[storage][query]") {
  TempDb file;
  std::map<std::string, std::vector<core::TrialId>> before;
  {
    auto store = TrialStore::Open(file.path()).value();
    // Values with ties, a negative zero and values at two times.
    const double values[] = {0.5, -0.25, 0.0, -0.0, 0.5, 2.0, -3.0, 0.75};
    for (auto mode : {core::Mode::kMax, core::Mode::kMin}) {
      std::string name(core::ToString(mode));
      auto e = store->experiments().Create(Experiment(name, mode)).value();
      for (int64_t i = 0; i < 8; ++i) {
        auto t = store->trials().Add(e, i, {}).value();
        double time = i % 3 == 0 ? 1.0 : 2.0;
        REQUIRE(
            store->reports().Append({t, 1, time, values[i], {}}, mode).ok());
      }
      store->trials().Add(e, 8, {}).value();  // no report: not ranked
    }
    REQUIRE(store->Commit().ok());
    for (const char* name : {"max", "min"})
      before[name] = BestIds(*store, name);
  }
  {
    // Make it what schema 11 left: a best index per mode, no last_key.
    auto db = Database::Open(file.path(), false).value();
    REQUIRE(db->Execute(
                  std::string(kUndoBoard) +
                  "ALTER TABLE trials DROP COLUMN last_key; "
                  "DROP TABLE reserve; "
                  "CREATE INDEX trials_best_last_max ON trials (experiment_id, "
                  "last_value DESC) WHERE last_value IS NOT NULL; "
                  "CREATE INDEX trials_best_last_min ON trials (experiment_id, "
                  "last_value) WHERE last_value IS NOT NULL; "
                  "PRAGMA user_version = 11")
                .ok());
  }
  SECTION("read-only, by the old order") {
    auto reader = TrialStore::OpenReadOnly(file.path()).value();
    for (const char* name : {"max", "min"})
      CHECK(BestIds(*reader, name) == before[name]);
  }
  SECTION("migrated by the next writer") {
    auto store = TrialStore::Open(file.path()).value();
    for (const char* name : {"max", "min"}) {
      CHECK(BestIds(*store, name).size() == 8);
      CHECK(BestIds(*store, name) == before[name]);
    }
    CHECK(before["max"] != before["min"]);
  }
}

TEST_CASE("best trials (by the last value) come from an index in each mode",
          "[storage][query]") {
  auto db = Database::Open(":memory:", false).value();
  REQUIRE(Migrate(*db).ok());
  for (auto mode : {core::Mode::kMax, core::Mode::kMin}) {
    for (auto by : {BestBy::kLast}) {
      std::string expected = "trials_board";
      auto plan = db->Prepare("EXPLAIN QUERY PLAN SELECT * FROM trials " +
                              BestTrialsWhereOrder(mode, by));
      REQUIRE(plan.ok());
      std::string steps;
      while (plan.value().Step().value()) steps += plan.value().Text(3) + ";";
      INFO(steps);
      CHECK(steps.find("USING INDEX " + expected + " ") != std::string::npos);
      CHECK(steps.find("TEMP B-TREE") == std::string::npos);
    }
  }
}

TEST_CASE("best by the best value any report reached", "[storage][query]") {
  auto store = TrialStore::Open(":memory:").value();
  auto e =
      store->experiments().Create(Experiment("e", core::Mode::kMax)).value();
  // Trial 1 peaked early at 0.9 then fell to 0.5 at epoch 3; trial 2 ended
  // at 0.7 at epoch 3 (the best by the last value).
  auto t1 = store->trials().Add(e, 0, {}).value();
  auto t2 = store->trials().Add(e, 1, {}).value();
  auto report = [&](core::TrialId t, int64_t seq, double value) {
    REQUIRE(store->reports()
                .Append({t, seq, double(seq), value, {}}, core::Mode::kMax)
                .ok());
  };
  report(t1, 1, 0.9);
  report(t1, 3, 0.5);
  report(t2, 1, 0.2);
  report(t2, 3, 0.7);
  REQUIRE(store->Commit().ok());
  auto record = store->experiments().Find("e").value().value();
  CHECK(store->trials().Best(record, 1, BestBy::kLast).value()[0].id == t2);
  CHECK(store->trials().Best(record, 1, BestBy::kBest).value()[0].id == t1);
  std::vector<core::TrialId> order;
  REQUIRE(store->trials()
              .ForEachBest(record, 5, BestBy::kBest,
                           [&](const TrialRecord& t) {
                             order.push_back(t.id);
                             return core::Status::Ok();
                           })
              .ok());
  CHECK(order == std::vector<core::TrialId>{t1, t2});
}

TEST_CASE("streaming reads hand out every row and stop at an error",
          "[storage][query]") {
  auto store = TrialStore::Open(":memory:").value();
  ExperimentId e = Populate(*store, "e");
  auto trials = store->trials().List(e).value();
  REQUIRE(store->reports()
              .Append({trials[0].id,
                       1,
                       1.0,
                       0.5,
                       {{"acc", 0.5}, {"epoch", 1}, {"loss", 2.0}}},
                      core::Mode::kMax)
              .ok());
  REQUIRE(store->reports()
              .Append({trials[0].id,
                       2,
                       2.0,
                       0.6,
                       {{"acc", 0.6}, {"epoch", 2}, {"lr_now", 0.1}}},
                      core::Mode::kMax)
              .ok());
  REQUIRE(store->Commit().ok());
  std::vector<core::TrialId> seen;
  REQUIRE(store->trials()
              .ForEach(e,
                       [&](const TrialRecord& t) {
                         seen.push_back(t.id);
                         CHECK(t.params.size() == 1);
                         return core::Status::Ok();
                       })
              .ok());
  CHECK(seen.size() == trials.size());
  int calls = 0;
  auto stopped = store->trials().ForEach(e, [&](const TrialRecord&) {
    ++calls;
    return core::Status(core::IoError("stop here"));
  });
  CHECK(stopped.message() == "stop here");
  CHECK(calls == 1);
  std::vector<int64_t> seqs;
  REQUIRE(store->reports()
              .ForEach(e,
                       [&](const ReportRecord& r) {
                         seqs.push_back(r.seq);
                         CHECK(r.created_at > 0);
                         return core::Status::Ok();
                       })
              .ok());
  CHECK(seqs == std::vector<int64_t>{1, 2});
  CHECK(store->trials().ParamNames(e).value() ==
        std::vector<std::string>{"lr"});
  CHECK(store->reports().MetricNames(e, 10).value() ==
        std::vector<std::string>{"acc", "epoch", "loss", "lr_now"});
  CHECK_FALSE(store->reports().MetricNames(e, 3).ok());
}

}  // namespace
}  // namespace tuner::storage
