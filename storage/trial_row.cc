// The columns of a trials row and of a params row, read and bound the one
// way every TrialStore file uses (trial_row.h).
#include "storage/trial_row.h"

#include <cmath>
#include <variant>

#include "core/metrics.h"

namespace tuner::storage {

namespace {

// The end is when the process exited where that is known (schema 10).
constexpr const char* kTrialColumns =
    "id, experiment_id, trial_index, status, attempts, exit_code, reason, "
    "last_time, last_value, best_value, created_at, started_at, "
    "COALESCE(exited_at, ended_at), shim_pid, shim_start";
constexpr const char* kTrialColumnsBefore10 =
    "id, experiment_id, trial_index, status, attempts, exit_code, reason, "
    "last_time, last_value, best_value, created_at, started_at, ended_at, "
    "shim_pid, shim_start";

}  // namespace

TrialRecord ReadTrialRow(const Statement& s) {
  TrialRecord r;
  r.id = s.Int(0);
  r.experiment_id = s.Int(1);
  r.index = s.Int(2);
  r.status =
      core::ParseTrialStatus(s.Text(3)).value_or(core::TrialStatus::kFailed);
  r.attempts = s.Int(4);
  if (!s.IsNull(5)) r.exit_code = s.Int(5);
  r.reason = s.Text(6);
  r.last_time = s.OptionalDouble(7);
  r.last_value = s.OptionalDouble(8);
  r.best_value = s.OptionalDouble(9);
  r.created_at = s.Double(10);
  r.started_at = s.OptionalDouble(11);
  r.ended_at = s.OptionalDouble(12);
  if (!s.IsNull(13)) r.shim_pid = s.Int(13);
  if (!s.IsNull(14)) r.shim_start = s.Int(14);
  return r;
}

std::optional<double> AsStored(std::optional<double> value) {
  if (value && std::isnan(*value)) return std::nullopt;
  return value;
}

RowBatch::Value ParamKind(const core::ParamValue& value) {
  if (std::holds_alternative<bool>(value)) return std::string("b");
  if (std::holds_alternative<int64_t>(value)) return std::string("i");
  if (std::holds_alternative<double>(value)) return std::string("f");
  return std::string("s");
}

RowBatch::Value ParamColumn(const core::ParamValue& value) {
  if (auto* b = std::get_if<bool>(&value)) return static_cast<int64_t>(*b);
  if (auto* i = std::get_if<int64_t>(&value)) return *i;
  if (auto* d = std::get_if<double>(&value)) return *d;
  // As bytes: the column's NUMERIC affinity would store "010" as 10.
  return RowBatch::Blob{std::get<std::string>(value)};
}

std::optional<double> ReportValue(std::optional<double> column,
                                  const core::Metrics& metrics,
                                  const std::string& metric) {
  return column ? column : core::FindMetric(metrics, metric);
}

core::ParamValue ReadParamValue(const Statement& s, const std::string& kind,
                                int column) {
  if (kind == "b") return s.Int(column) != 0;
  if (kind == "i") return s.Int(column);
  if (kind == "f") return s.Double(column);
  return s.Text(column);
}

const char* TrialColumns(bool exit_times) {
  return exit_times ? kTrialColumns : kTrialColumnsBefore10;
}

core::Status EachRow(Statement& stmt,
                     const std::function<core::Status()>& row) {
  for (;;) {
    auto more = stmt.Step();
    if (!more.ok()) return more.error();
    if (!more.value()) return core::Status::Ok();
    TUNER_RETURN_IF_ERROR(row());
  }
}

core::Result<std::vector<std::string>> FirstColumnTexts(Statement& stmt) {
  std::vector<std::string> out;
  auto status = EachRow(stmt, [&] {
    out.push_back(stmt.Text(0));
    return core::Status::Ok();
  });
  if (!status.ok()) return status.error();
  return out;
}

core::Status InReadTransaction(Database& db,
                               const std::function<core::Status()>& read) {
  if (db.InTransaction()) return read();
  TUNER_RETURN_IF_ERROR(db.Execute("BEGIN"));
  core::Status status = read();
  core::Status end = db.Execute("COMMIT");  // a read: takes no lock
  if (!end.ok() && db.InTransaction()) (void)db.Execute("ROLLBACK");
  return status.ok() ? end : status;
}

const char kLeaseColumns[] =
    "id, trial_id, attempt, kind, devices, cpus, acquired_at, released_at, "
    "node";

LeaseRecord ReadLeaseRow(const Statement& s) {
  return LeaseRecord{s.Int(0),  s.Int(1),  s.Int(2),    s.Text(3),
                     s.Text(4), s.Text(5), s.Double(6), s.OptionalDouble(7),
                     s.Text(8)};
}

core::Result<std::vector<LeaseRecord>> ReadLeaseRows(Statement& s) {
  std::vector<LeaseRecord> out;
  TUNER_RETURN_IF_ERROR(EachRow(s, [&] {
    out.push_back(ReadLeaseRow(s));
    return core::Status::Ok();
  }));
  return out;
}

}  // namespace tuner::storage
