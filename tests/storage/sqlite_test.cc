// The statement wrapper's contracts: $now is bound at each run without
// taking a number the SQL uses, and a parameter bound without a copy reads
// what it pointed to at the run.
#include "storage/sqlite.h"

#include <string>

#include "tests/catch.h"

namespace tuner::storage {
namespace {

TEST_CASE("$now takes a number past the SQL's own parameters",
          "[storage][sqlite]") {
  auto db = Database::Open(":memory:", false).value();
  db->set_time_source([] { return 1234.5; });
  REQUIRE(db->Execute("CREATE TABLE t (a, b, c)").ok());
  SECTION("numbered parameters after it") {
    // A named $now would take 1, the number of the ?1 that follows it.
    auto insert =
        db->Prepare("INSERT INTO t (c, a, b) VALUES ($now, ?1, ?2)").value();
    REQUIRE(insert.Bind(1, int64_t{7}).Bind(2, int64_t{8}).Run().ok());
  }
  SECTION("parameters SQLite numbers itself") {
    auto insert =
        db->Prepare("INSERT INTO t (a, b, c) VALUES (?, ?, $now)").value();
    REQUIRE(insert.Bind(1, int64_t{7}).Bind(2, int64_t{8}).Run().ok());
  }
  auto row = db->Prepare("SELECT a, b, c FROM t").value();
  REQUIRE(row.Step().value());
  CHECK(row.Int(0) == 7);
  CHECK(row.Int(1) == 8);
  CHECK(row.Double(2) == 1234.5);
}

TEST_CASE("a parameter bound until the reset is read at the run",
          "[storage][sqlite]") {
  auto db = Database::Open(":memory:", false).value();
  REQUIRE(db->Execute("CREATE TABLE t (a TEXT, b BLOB)").ok());
  auto insert = db->Prepare("INSERT INTO t (a, b) VALUES (?1, ?2)").value();
  std::string text = "first";
  std::string bytes(
      "0\0"
      "1",
      3);
  insert.BindUntilReset(1, text).BindBytesUntilReset(2, bytes);
  REQUIRE(insert.Run().ok());
  // The run reset it: every parameter is NULL until bound again.
  REQUIRE(insert.Run().ok());
  auto rows =
      db->Prepare("SELECT a, hex(b), typeof(a) FROM t ORDER BY rowid").value();
  REQUIRE(rows.Step().value());
  CHECK(rows.Text(0) == "first");
  CHECK(rows.Text(1) == "300031");
  REQUIRE(rows.Step().value());
  CHECK(rows.Text(2) == "null");
}

}  // namespace
}  // namespace tuner::storage
