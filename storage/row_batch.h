// RowBatch: rows for one table, inserted by one multi-row INSERT per
// kRows of them instead of one statement each (SQLite's work per
// statement, not per row, is most of a small row's cost).
#ifndef TUNER_STORAGE_ROW_BATCH_H_
#define TUNER_STORAGE_ROW_BATCH_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "core/result.h"
#include "storage/sqlite.h"

namespace tuner::storage {

// Added rows are in the database once Flush() returns (all but a row that
// fails: a failed INSERT of many is retried row by row, and Flush() returns
// the first row's error, as one INSERT per row would): the owner flushes
// before anything on the connection reads the table, and before it
// commits. Discard() forgets rows of a transaction SQLite rolled back. Not
// thread-safe.
class RowBatch {
 public:
  static constexpr int kRows = 32;
  // Bytes bound as a BLOB (a std::string binds as TEXT).
  struct Blob {
    std::string bytes;
  };
  using Value =
      std::variant<std::monostate, int64_t, double, std::string, Blob>;

  // What must be written before the batch's rows (the rows they
  // reference, gathered elsewhere); runs before each INSERT.
  using BeforeInsert = std::function<core::Status()>;

  // `insert` is "INSERT INTO table (c1, ..., cN)", with `columns` = N.
  RowBatch(Database& db, std::string insert, int columns,
           BeforeInsert before_insert = {});

  // Adds one row of `columns` values; inserts kRows gathered rows at once.
  template <typename... Values>
  core::Status Add(Values&&... row) {
    (values_.emplace_back(std::forward<Values>(row)), ...);
    if (values_.size() < static_cast<size_t>(kRows * columns_)) {
      return core::Status::Ok();
    }
    return Flush();
  }
  core::Status Flush();
  void Discard() { values_.clear(); }
  bool empty() const { return values_.empty(); }

  static Value Optional(const std::optional<double>& value) {
    return value ? Value(*value) : Value();
  }

 private:
  // The INSERT of `rows` rows, prepared on first use.
  core::Result<Statement*> InsertOf(int rows);
  // The gathered rows, one INSERT each; the first error.
  core::Status InsertOneByOne();
  static void Bind(Statement& stmt, int index, const Value& value);

  Database* db_;
  std::string insert_;
  int columns_;
  BeforeInsert before_insert_;
  std::vector<Value> values_;  // the gathered rows, row after row
  std::map<int, Statement> inserts_;
};

}  // namespace tuner::storage

#endif  // TUNER_STORAGE_ROW_BATCH_H_
