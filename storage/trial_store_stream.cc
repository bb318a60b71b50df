// TrialStore's streaming reads: rows handed out as SQLite steps through
// them, so a listing of a million trials holds one at a time (the rest:
// trial_store.cc).
#include "storage/json_codec.h"
#include "storage/trial_row.h"
#include "storage/trial_store.h"

namespace tuner::storage {

namespace {

// A statement's column names, one per row.
core::Result<std::vector<std::string>> Names(Statement& stmt) {
  std::vector<std::string> out;
  auto status = EachRow(stmt, [&] {
    out.push_back(stmt.Text(0));
    return core::Status::Ok();
  });
  if (!status.ok()) return status.error();
  return out;
}

}  // namespace

core::Status TrialStore::InReadTransaction(
    const std::function<core::Status()>& read) {
  if (db_->InTransaction()) return read();
  TUNER_RETURN_IF_ERROR(db_->Execute("BEGIN"));
  core::Status status = read();
  core::Status end = db_->Execute("COMMIT");  // a read: takes no lock
  if (!end.ok() && db_->InTransaction()) (void)db_->Execute("ROLLBACK");
  return status.ok() ? end : status;
}

core::Status TrialStore::ForEachTrial(
    ExperimentId experiment,
    const std::function<core::Status(const TrialRecord&)>& visit) {
  TUNER_RETURN_IF_ERROR(batch_.Flush());
  // trial_index order walks the (experiment_id, trial_index) index: no
  // sort, so no temporary copy of the rows.
  auto stmt = db_->Prepare(std::string("SELECT ") + TrialColumns(exit_times_) +
                           " FROM trials WHERE experiment_id = ?1 "
                           "ORDER BY trial_index");
  if (!stmt.ok()) return stmt.error();
  stmt.value().Bind(1, experiment);
  return InReadTransaction([&] { return VisitTrials(stmt.value(), visit); });
}

core::Status TrialStore::ForEachBest(
    const ExperimentRecord& experiment, int64_t limit, BestBy by,
    const std::function<core::Status(const TrialRecord&)>& visit) {
  TUNER_RETURN_IF_ERROR(batch_.Flush());
  return InReadTransaction([&]() -> core::Status {
    auto stmt = PrepareBest(experiment, limit, by);
    if (!stmt.ok()) return stmt.status();
    return VisitTrials(stmt.value(), visit);
  });
}

core::Status TrialStore::VisitTrials(
    Statement& stmt,
    const std::function<core::Status(const TrialRecord&)>& visit) {
  return EachRow(stmt, [&]() -> core::Status {
    TrialRecord trial = ReadTrialRow(stmt);
    auto params = LoadParams(trial.id);
    if (!params.ok()) return params.error();
    trial.params = std::move(params).value();
    return visit(trial);
  });
}

core::Status TrialStore::ForEachReport(
    ExperimentId experiment,
    const std::function<core::Status(const ReportRecord&)>& visit) {
  TUNER_RETURN_IF_ERROR(batch_.Flush());
  auto stmt = db_->Prepare(
      "SELECT r.trial_id, r.seq, r.time, r.value, r.metrics, r.attempt, "
      "r.offset, r.created_at, e.metric FROM trials t JOIN reports r "
      "ON r.trial_id = t.id JOIN experiments e ON e.id = t.experiment_id "
      "WHERE t.experiment_id = ?1 ORDER BY t.trial_index, r.seq");
  if (!stmt.ok()) return stmt.error();
  Statement& s = stmt.value();
  s.Bind(1, experiment);
  return InReadTransaction([&] {
    return EachRow(s, [&]() -> core::Status {
      ReportRecord r;
      r.trial = s.Int(0);
      r.seq = s.Int(1);
      r.time = s.OptionalDouble(2);
      r.value = s.OptionalDouble(3);
      r.metrics = MetricsFromJson(s.Text(4));
      r.value = ReportValue(r.value, r.metrics, s.Text(8));
      r.attempt = s.Int(5);
      if (auto offset = s.OptionalDouble(6))
        r.offset = static_cast<int64_t>(*offset);
      r.created_at = s.Double(7);
      return visit(r);
    });
  });
}

core::Result<std::vector<std::string>> TrialStore::ParamNames(
    ExperimentId experiment) {
  TUNER_RETURN_IF_ERROR(batch_.Flush());
  // DISTINCT keeps only the names seen (no sort of every row), each where
  // it first appears: the first trial's order.
  auto stmt = db_->Prepare(
      "SELECT DISTINCT p.name FROM trials t JOIN params p "
      "ON p.trial_id = t.id WHERE t.experiment_id = ?1");
  if (!stmt.ok()) return stmt.error();
  stmt.value().Bind(1, experiment);
  return Names(stmt.value());
}

core::Result<std::vector<std::string>> TrialStore::MetricNames(
    ExperimentId experiment, int64_t limit) {
  TUNER_RETURN_IF_ERROR(batch_.Flush());
  // DISTINCT keeps a set of the names seen (bounded by `limit` + 1), and
  // gives each name where it first appears.
  auto stmt = db_->Prepare(
      "SELECT DISTINCT m.key FROM trials t JOIN reports r "
      "ON r.trial_id = t.id, json_each(r.metrics) m "
      "WHERE t.experiment_id = ?1 AND json_valid(r.metrics) LIMIT ?2");
  if (!stmt.ok()) return stmt.error();
  stmt.value().Bind(1, experiment).Bind(2, limit + 1);
  auto names = Names(stmt.value());
  if (names.ok() && static_cast<int64_t>(names.value().size()) > limit) {
    return core::InvalidArgument("the reports have more than " +
                                 std::to_string(limit) + " metric names");
  }
  return names;
}

}  // namespace tuner::storage
