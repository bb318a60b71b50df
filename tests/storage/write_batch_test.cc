// WriteBatch on its own: the batch's phases, the group commit, what a
// failed commit leaves, and when what the writer knows is forgotten.
#include "storage/write_batch.h"

#include <filesystem>
#include <string>
#include <vector>

#include "tests/catch.h"
#include "tests/support/fresh_dir.h"

namespace tuner::storage {
namespace {

// A writer's memory that records what the batch asked of it.
struct FakeMemory {
  std::vector<std::string> calls;
  size_t known = 0;
  core::Status commit_status;  // what before_commit returns
  WriteBatch::Memory Hooks() {
    return {.flush =
                [this] {
                  calls.push_back("flush");
                  return core::Status::Ok();
                },
            .before_commit =
                [this] {
                  calls.push_back("before_commit");
                  return commit_status;
                },
            .forget = [this] { calls.push_back("forget"); },
            .known_trials = [this] { return known; }};
  }
};

std::unique_ptr<Database> OpenDb(const std::string& path) {
  auto db = Database::Open(path, false);
  REQUIRE(db.ok());
  return std::move(db).value();
}

// A private in-memory database with one table, t.
std::unique_ptr<Database> MemoryDbWithTable() {
  auto db = OpenDb(":memory:");
  REQUIRE(db->Execute("CREATE TABLE t (x)").ok());
  return db;
}

int64_t CountRows(Database& db) {
  auto stmt = db.Prepare("SELECT count(*) FROM t");
  REQUIRE(stmt.ok());
  auto row = stmt.value().Step();
  REQUIRE(row.ok());
  return stmt.value().Int(0);
}

TEST_CASE("WriteBatch: a batch opens on the first write and a commit ends it",
          "[batch]") {
  auto db = MemoryDbWithTable();
  FakeMemory memory;
  WriteBatch batch(*db, memory.Hooks());
  CHECK(batch.Commit().ok());  // nothing open: nothing to do
  CHECK(memory.calls.empty());
  REQUIRE(batch.Begin().ok());
  CHECK(batch.phase() == WriteBatch::Phase::kOpen);
  CHECK(batch.InTransaction());
  REQUIRE(db->Execute("INSERT INTO t VALUES (1)").ok());
  memory.calls.clear();
  REQUIRE(batch.Commit().ok());
  CHECK(memory.calls == std::vector<std::string>{"flush", "before_commit"});
  CHECK(batch.phase() == WriteBatch::Phase::kNone);
  CHECK_FALSE(db->InTransaction());
  CHECK(CountRows(*db) == 1);
}

TEST_CASE("WriteBatch: a held commit keeps the transaction for n - 1 batches",
          "[batch]") {
  auto db = MemoryDbWithTable();
  FakeMemory memory;
  WriteBatch batch(*db, memory.Hooks());
  batch.HoldCommits(3);
  for (int i = 0; i < 2; ++i) {
    REQUIRE(batch.Begin().ok());
    REQUIRE(db->Execute("INSERT INTO t VALUES (1)").ok());
    REQUIRE(batch.Commit().ok());
    CHECK_FALSE(batch.InTransaction());  // the batch ended...
    CHECK(db->InTransaction());          // ...its transaction did not
  }
  REQUIRE(batch.Begin().ok());
  REQUIRE(batch.Commit().ok());
  CHECK_FALSE(db->InTransaction());
  // FlushHeld commits what is held at once.
  REQUIRE(batch.Begin().ok());
  REQUIRE(db->Execute("INSERT INTO t VALUES (2)").ok());
  REQUIRE(batch.Commit().ok());
  CHECK(db->InTransaction());
  REQUIRE(batch.FlushHeld().ok());
  CHECK_FALSE(db->InTransaction());
  CHECK(CountRows(*db) == 3);
}

TEST_CASE("WriteBatch: a failed commit rolls the batch back and forgets",
          "[batch]") {
  auto db = MemoryDbWithTable();
  FakeMemory memory;
  WriteBatch batch(*db, memory.Hooks());
  REQUIRE(batch.Begin().ok());
  REQUIRE(db->Execute("INSERT INTO t VALUES (1)").ok());
  memory.commit_status = core::IoError("disk full");
  memory.calls.clear();
  core::Status committed = batch.Commit();
  CHECK_FALSE(committed.ok());
  CHECK(committed.message().find("cannot commit to the database: ") == 0);
  CHECK(memory.calls.back() == "forget");
  CHECK(batch.phase() == WriteBatch::Phase::kNone);
  CHECK_FALSE(db->InTransaction());
}

TEST_CASE(
    "WriteBatch: a batch SQLite ended by itself is lost, and the next "
    "commit says so",
    "[batch]") {
  auto db = MemoryDbWithTable();
  FakeMemory memory;
  WriteBatch batch(*db, memory.Hooks());
  REQUIRE(batch.Begin().ok());
  REQUIRE(db->Execute("INSERT INTO t VALUES (1)").ok());
  REQUIRE(db->Execute("ROLLBACK").ok());  // as SQLite does on a full disk
  REQUIRE(batch.Begin().ok());            // the next write
  CHECK(batch.phase() == WriteBatch::Phase::kLost);
  REQUIRE(db->Execute("INSERT INTO t VALUES (2)").ok());
  core::Status committed = batch.Commit();
  CHECK_FALSE(committed.ok());
  CHECK(committed.message().find("an earlier error rolled back") !=
        std::string::npos);
  CHECK(batch.phase() == WriteBatch::Phase::kNone);
  // The next batch is a new one.
  REQUIRE(batch.Begin().ok());
  CHECK(batch.phase() == WriteBatch::Phase::kOpen);
  CHECK(batch.Commit().ok());
}

TEST_CASE(
    "WriteBatch: what the writer knows lasts until another connection "
    "commits",
    "[batch]") {
  auto dir = testing::FreshDir("write-batch");
  std::string path = (dir / "t.db").string();
  auto db = OpenDb(path);
  auto other = OpenDb(path);
  REQUIRE(db->Execute("CREATE TABLE t (x)").ok());
  FakeMemory memory;
  WriteBatch batch(*db, memory.Hooks());
  REQUIRE(batch.Begin().ok());  // nothing known yet: forgets
  REQUIRE(batch.Commit().ok());
  memory.calls.clear();
  REQUIRE(batch.Begin().ok());
  REQUIRE(batch.Commit().ok());
  CHECK(memory.calls == std::vector<std::string>{"flush", "before_commit"});
  REQUIRE(other->Execute("INSERT INTO t VALUES (1)").ok());
  memory.calls.clear();
  REQUIRE(batch.Begin().ok());
  CHECK(memory.calls == std::vector<std::string>{"forget"});
  REQUIRE(batch.Commit().ok());
  // Past kMaxKnownTrials it keeps nothing: the next batch reads again.
  memory.known = WriteBatch::kMaxKnownTrials + 1;
  REQUIRE(batch.Begin().ok());
  memory.calls.clear();
  REQUIRE(batch.Commit().ok());
  CHECK(memory.calls.back() == "forget");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tuner::storage
