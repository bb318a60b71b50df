// Rows gathered in memory and inserted 32 at a time: every value as it was
// added, and every read on the writer's connection sees them at once.
#include "storage/row_batch.h"

#include <filesystem>
#include <string>
#include <vector>

#include "storage/trial_store.h"
#include "tests/catch.h"
#include "tests/support/experiment_record.h"
#include "tests/support/fresh_dir.h"

namespace tuner::storage {
namespace {

int64_t CountRows(Database& db, const std::string& table) {
  auto stmt = db.Prepare("SELECT count(*) FROM " + table).value();
  REQUIRE(stmt.Step().value());
  return stmt.Int(0);
}

TEST_CASE("a row batch inserts 32 rows at a time and the rest on Flush",
          "[storage][row_batch]") {
  auto db = Database::Open(":memory:", false).value();
  REQUIRE(db->Execute("CREATE TABLE t (a, b, c, d)").ok());
  RowBatch batch(*db, "INSERT INTO t (a, b, c, d)", 4);
  for (int64_t i = 0; i < 70; ++i) {
    REQUIRE(batch
                .Add(i, 0.5 * i, std::string("text ") + std::to_string(i),
                     i % 2 ? RowBatch::Value(RowBatch::Blob{"010"})
                           : RowBatch::Value())
                .ok());
    int64_t inserted = (i + 1) / RowBatch::kRows * RowBatch::kRows;
    CHECK(CountRows(*db, "t") == inserted);
  }
  REQUIRE(batch.Flush().ok());
  CHECK(batch.empty());
  CHECK(CountRows(*db, "t") == 70);
  auto rows = db->Prepare(
                    "SELECT a, b, c, typeof(d), quote(d) FROM t ORDER BY "
                    "rowid")
                  .value();
  for (int64_t i = 0; i < 70; ++i) {
    REQUIRE(rows.Step().value());
    CHECK(rows.Int(0) == i);
    CHECK(rows.Double(1) == 0.5 * i);
    CHECK(rows.Text(2) == "text " + std::to_string(i));
    CHECK(rows.Text(3) == (i % 2 ? "blob" : "null"));
    if (i % 2) CHECK(rows.Text(4) == "X'303130'");
  }
}

TEST_CASE("a row batch forgets the rows of a transaction that ended",
          "[storage][row_batch]") {
  auto db = Database::Open(":memory:", false).value();
  REQUIRE(db->Execute("CREATE TABLE t (a)").ok());
  RowBatch batch(*db, "INSERT INTO t (a)", 1);
  REQUIRE(batch.Add(int64_t{1}).ok());
  batch.Discard();
  REQUIRE(batch.Flush().ok());
  CHECK(CountRows(*db, "t") == 0);
}

TEST_CASE(
    "a row batch writes what its rows reference first, and only a row whose "
    "reference fails is not written",
    "[storage][row_batch]") {
  auto db = Database::Open(":memory:", false).value();
  REQUIRE(db->Execute("PRAGMA foreign_keys = ON; "
                      "CREATE TABLE parent (id INTEGER PRIMARY KEY); "
                      "CREATE TABLE child (parent REFERENCES parent (id))")
              .ok());
  std::vector<int64_t> gathered;  // parents not written yet
  RowBatch parents(*db, "INSERT INTO parent (id)", 1);
  auto write_parents = [&] {
    core::Status first = core::Status::Ok();
    for (int64_t id : gathered) {
      core::Status added = parents.Add(id);
      if (first.ok()) first = added;
    }
    gathered.clear();
    core::Status flushed = parents.Flush();
    return first.ok() ? flushed : first;
  };
  RowBatch children(*db, "INSERT INTO child (parent)", 1, write_parents);
  for (int64_t id = 1; id <= 40; ++id) {
    gathered.push_back(id);
    // The 32nd child is inserted at once: its parents go first.
    REQUIRE(children.Add(id).ok());
  }
  CHECK(CountRows(*db, "parent") == 32);
  CHECK(CountRows(*db, "child") == 32);
  REQUIRE(children.Flush().ok());
  CHECK(CountRows(*db, "parent") == 40);
  CHECK(CountRows(*db, "child") == 40);

  // A parent that cannot be written (its id is taken): the rows that
  // reference it fail, each on its own, and the others are written.
  gathered = {41, 7};
  REQUIRE(children.Add(int64_t{41}).ok());
  REQUIRE(children.Add(int64_t{99}).ok());  // never gathered
  REQUIRE(children.Add(int64_t{7}).ok());
  core::Status flushed = children.Flush();
  CHECK_FALSE(flushed.ok());
  CHECK(CountRows(*db, "parent") == 41);
  CHECK(CountRows(*db, "child") == 42);  // 41 and 7, not 99
}

TEST_CASE(
    "the writer reads its gathered params, reports and decisions "
    "before it commits, and a deleted experiment leaves none",
    "[storage][row_batch]") {
  auto dir = testing::FreshDir("row-batch");
  std::string path = (dir / "t.db").string();
  auto store = TrialStore::Open(path).value();
  ExperimentRecord record = testing::ExperimentNamed("e", core::Mode::kMin);
  auto e = store->experiments().Create(record).value();
  auto t = store->trials()
               .Add(e, 0, {{"lr", 0.1}, {"opt", std::string("adam")}})
               .value();
  REQUIRE(store->trials().MarkRunning(t).ok());
  REQUIRE(
      store->reports()
          .Append({t, 1, 1.0, 0.5, {{"loss", 0.5}}, 1, 120}, core::Mode::kMin)
          .ok());
  core::RungDecision rung;
  rung.milestone = 1;
  rung.value = 0.5;
  rung.rank = 1;
  rung.n = 1;
  rung.verdict = core::RungVerdict::kContinue;
  REQUIRE(store->reports().AppendDecision({t, rung}).ok());
  REQUIRE(store->InTransaction());

  CHECK(store->trials().ParamNames(e).value() ==
        std::vector<std::string>{"lr", "opt"});
  auto trial = store->trials().Find(t).value();
  REQUIRE(trial);
  CHECK(trial->params.size() == 2);
  CHECK(trial->last_value == 0.5);
  CHECK(store->reports().List(t).value().size() == 1);
  CHECK(store->reports().ListCurves(e).value().size() == 1);
  CHECK(store->reports().LastOffset(t, 1).value() == 120);
  CHECK(store->reports().ListDecisions(e).value().size() == 1);
  CHECK(store->reports().MetricNames(e, 10).value() ==
        std::vector<std::string>{"loss"});

  REQUIRE(
      store->reports()
          .Append({t, 2, 2.0, 0.4, {{"loss", 0.4}}, 1, 200}, core::Mode::kMin)
          .ok());
  REQUIRE(store->DeleteExperiment(e, "e", {}).ok());
  REQUIRE(store->Commit().ok());
  auto db = Database::Open(path, true).value();
  for (const char* table : {"trials", "params", "reports", "decisions"}) {
    INFO(table);
    CHECK(CountRows(*db, table) == 0);
  }
  store.reset();
  db.reset();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tuner::storage
