#include "storage/row_batch.h"

#include <utility>

namespace tuner::storage {

RowBatch::RowBatch(Database& db, std::string insert, int columns,
                   BeforeInsert before_insert)
    : db_(&db),
      insert_(std::move(insert)),
      columns_(columns),
      before_insert_(std::move(before_insert)) {
  values_.reserve(static_cast<size_t>(kRows * columns_));
}

core::Status RowBatch::Flush() {
  if (values_.empty()) return core::Status::Ok();
  // Should what the rows reference fail to be written, each row that
  // references it fails on its own (a foreign key), below.
  core::Status before = before_insert_ ? before_insert_() : core::Status::Ok();
  int rows = static_cast<int>(values_.size()) / columns_;
  auto insert = InsertOf(rows);
  if (!insert.ok()) return insert.status();
  Statement& stmt = *insert.value();
  int index = 1;
  for (const Value& value : values_) Bind(stmt, index++, value);
  core::Status status = stmt.Run();
  if (!status.ok() && rows > 1) status = InsertOneByOne();
  values_.clear();
  return before.ok() ? status : before;
}

core::Status RowBatch::InsertOneByOne() {
  // SQLite undid the whole statement: each row alone, so that only a row
  // that fails (a key, a foreign key) is not written.
  auto insert = InsertOf(1);
  if (!insert.ok()) return insert.status();
  core::Status first = core::Status::Ok();
  for (size_t row = 0; row < values_.size(); row += columns_) {
    for (int column = 0; column < columns_; ++column) {
      Bind(*insert.value(), column + 1, values_[row + column]);
    }
    core::Status status = insert.value()->Run();
    if (first.ok()) first = status;
  }
  return first;
}

void RowBatch::Bind(Statement& stmt, int index, const Value& value) {
  if (auto* i = std::get_if<int64_t>(&value)) {
    stmt.Bind(index, *i);
  } else if (auto* d = std::get_if<double>(&value)) {
    stmt.Bind(index, *d);
  } else if (auto* s = std::get_if<std::string>(&value)) {
    stmt.BindUntilReset(index, *s);
  } else if (auto* b = std::get_if<Blob>(&value)) {
    stmt.BindBytesUntilReset(index, b->bytes);
  } else {
    stmt.BindNull(index);
  }
}

core::Result<Statement*> RowBatch::InsertOf(int rows) {
  auto found = inserts_.find(rows);
  if (found != inserts_.end()) return &found->second;
  std::string sql = insert_ + " VALUES ";
  int index = 1;
  for (int row = 0; row < rows; ++row) {
    sql += row == 0 ? "(" : ", (";
    for (int column = 0; column < columns_; ++column) {
      if (column > 0) sql += ", ";
      sql += "?" + std::to_string(index++);
    }
    sql += ")";
  }
  auto stmt = db_->Prepare(sql);
  if (!stmt.ok()) return stmt.error();
  return &inserts_.emplace(rows, std::move(stmt).value()).first->second;
}

}  // namespace tuner::storage
