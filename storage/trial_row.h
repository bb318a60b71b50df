// The columns of a trials row and how to read them, shared by the files
// that implement TrialStore (not part of its interface).
#ifndef TUNER_STORAGE_TRIAL_ROW_H_
#define TUNER_STORAGE_TRIAL_ROW_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "storage/records.h"
#include "storage/row_batch.h"
#include "storage/sqlite.h"

namespace tuner::storage {

// "id, experiment_id, ..." in the order ReadTrialRow reads them;
// `exit_times`: the table has schema 10's exited_at.
const char* TrialColumns(bool exit_times);
// The current row of a statement that selected TrialColumns() (no params).
TrialRecord ReadTrialRow(const Statement& s);
// A time or value as its REAL column stores it: NaN binds as NULL.
std::optional<double> AsStored(std::optional<double> value);
// The params table's `kind` and `value` of a value (ReadParamValue reads
// them back).
RowBatch::Value ParamKind(const core::ParamValue& value);
RowBatch::Value ParamColumn(const core::ParamValue& value);
// A report's objective as reported: its `value` column, or for NULL (SQLite
// stores a NaN so) the objective `metric` in its metrics, NaN included;
// nullopt when the report has none.
std::optional<double> ReportValue(std::optional<double> column,
                                  const core::Metrics& metrics,
                                  const std::string& metric);

// Steps `stmt` to its end, calling `row` on each; stops at the first error.
core::Status EachRow(Statement& stmt, const std::function<core::Status()>& row);
// The first column of every row of `stmt`, as text.
core::Result<std::vector<std::string>> FirstColumnTexts(Statement& stmt);
// Runs `read` in one read transaction (one snapshot, and one check of the
// files: see Database), unless a transaction is open already.
core::Status InReadTransaction(Database& db,
                               const std::function<core::Status()>& read);

// "id, trial_id, ..." of the leases table, in the order ReadLeaseRow reads.
extern const char kLeaseColumns[];
// The current row of a statement that selected kLeaseColumns (first).
LeaseRecord ReadLeaseRow(const Statement& s);
// Every row of a statement (bound) that selected kLeaseColumns (first).
core::Result<std::vector<LeaseRecord>> ReadLeaseRows(Statement& s);

// A params row's value: `kind` is its kind column (b, i, f or s) and
// `column` the index of its value column in `s`.
core::ParamValue ReadParamValue(const Statement& s, const std::string& kind,
                                int column);

}  // namespace tuner::storage

#endif  // TUNER_STORAGE_TRIAL_ROW_H_
