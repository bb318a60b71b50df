#include "storage/report_table.h"

#include <cmath>
#include <limits>

#include "storage/change_feed.h"
#include "storage/json_codec.h"
#include "storage/trial_row.h"

namespace tuner::storage {

namespace {

// The columns ReadReportRow reads, of reports `r` joined to their
// experiment `e` (for the objective's name).
constexpr char kReportColumns[] =
    "r.trial_id, r.seq, r.time, r.value, r.metrics, r.attempt, r.offset, "
    "r.created_at, e.metric";

ReportRecord ReadReportRow(const Statement& s) {
  ReportRecord r;
  r.trial = s.Int(0);
  r.seq = s.Int(1);
  r.time = s.OptionalDouble(2);
  r.metrics = MetricsFromJson(s.Text(4));
  r.value = ReportValue(s.OptionalDouble(3), r.metrics, s.Text(8));
  r.attempt = s.Int(5);
  if (auto offset = s.OptionalDouble(6)) {
    r.offset = static_cast<int64_t>(*offset);
  }
  r.created_at = s.Double(7);
  return r;
}

}  // namespace

void ReportTable::Prepare(bool read_only) {
  if (read_only) return;
  // Their rows reference trials: the trials added in the batch go first.
  auto trials_first = [this] { return trials_.WriteAdded(); };
  reports_.emplace(db_,
                   "INSERT INTO reports (trial_id, seq, time, value, metrics, "
                   "attempt, offset, created_at)",
                   8, trials_first);
  decisions_.emplace(db_,
                     "INSERT INTO decisions (trial_id, rung, milestone, value, "
                     "rank, n, decision, bracket, created_at)",
                     9, trials_first);
}

core::Status ReportTable::Flush() {
  if (reports_) TUNER_RETURN_IF_ERROR(reports_->Flush());
  return decisions_ ? decisions_->Flush() : core::Status::Ok();
}

void ReportTable::Forget() {
  if (reports_) reports_->Discard();
  if (decisions_) decisions_->Discard();
}

core::Status ReportTable::Append(const ReportRecord& report, core::Mode mode) {
  TUNER_RETURN_IF_ERROR(batch_.Begin());
  TUNER_RETURN_IF_ERROR(reports_->Add(
      report.trial, report.seq, RowBatch::Optional(report.time),
      RowBatch::Optional(report.value), MetricsToJson(report.metrics),
      report.attempt,
      report.offset ? RowBatch::Value(*report.offset) : RowBatch::Value(),
      db_.NowSeconds()));
  if (!report.time || !report.value || !std::isfinite(*report.value)) {
    return core::Status::Ok();
  }
  // The trial row is updated once per batch, not once per report.
  trials_.NoteLastValue(report.trial, *report.time, *report.value, mode);
  return core::Status::Ok();
}

core::Status ReportTable::AppendDecision(const DecisionRecord& record) {
  TUNER_RETURN_IF_ERROR(batch_.Begin());
  const core::RungDecision& d = record.decision;
  return decisions_->Add(record.trial, static_cast<int64_t>(d.rung),
                         d.milestone, RowBatch::Optional(d.value), d.rank, d.n,
                         std::string(core::ToString(d.verdict)),
                         static_cast<int64_t>(d.bracket), db_.NowSeconds());
}

core::Result<std::vector<ReportRecord>> ReportTable::List(core::TrialId trial,
                                                          int64_t after_seq,
                                                          int64_t limit) {
  TUNER_RETURN_IF_ERROR(batch_.Flush());
  auto stmt = db_.Prepare(std::string("SELECT ") + kReportColumns +
                          " FROM reports r JOIN trials t ON t.id = r.trial_id "
                          "JOIN experiments e ON e.id = t.experiment_id "
                          "WHERE r.trial_id = ?1 AND r.seq > ?2 "
                          "ORDER BY r.seq LIMIT ?3");
  if (!stmt.ok()) return stmt.error();
  Statement& s = stmt.value();
  s.Bind(1, trial).Bind(2, after_seq).Bind(3, limit);  // limit < 0: none
  std::vector<ReportRecord> out;
  TUNER_RETURN_IF_ERROR(EachRow(s, [&] {
    out.push_back(ReadReportRow(s));
    return core::Status::Ok();
  }));
  return out;
}

core::Result<std::vector<CurvePoint>> ReportTable::ListCurves(
    ExperimentId experiment) {
  // Every report: those made after the beginning of time.
  TUNER_RETURN_IF_ERROR(batch_.Flush());
  return ChangeFeed(db_, trials_.exit_times())
      .ListCurvesSince(experiment, -std::numeric_limits<double>::infinity(),
                       "");
}

core::Result<std::vector<DecisionRecord>> ReportTable::ListDecisions(
    ExperimentId experiment) {
  // Every decision: those made after the beginning of time.
  TUNER_RETURN_IF_ERROR(batch_.Flush());
  return ChangeFeed(db_, trials_.exit_times())
      .ListDecisionsSince(experiment, -std::numeric_limits<double>::infinity());
}

core::Status ReportTable::ForEach(
    ExperimentId experiment,
    const std::function<core::Status(const ReportRecord&)>& visit) {
  TUNER_RETURN_IF_ERROR(batch_.Flush());
  auto stmt = db_.Prepare(
      std::string("SELECT ") + kReportColumns +
      " FROM trials t JOIN reports r ON r.trial_id = t.id JOIN experiments e "
      "ON e.id = t.experiment_id WHERE t.experiment_id = ?1 "
      "ORDER BY t.trial_index, r.seq");
  if (!stmt.ok()) return stmt.error();
  Statement& s = stmt.value();
  s.Bind(1, experiment);
  return InReadTransaction(
      db_, [&] { return EachRow(s, [&] { return visit(ReadReportRow(s)); }); });
}

core::Result<std::vector<std::string>> ReportTable::MetricNames(
    ExperimentId experiment, int64_t limit) {
  TUNER_RETURN_IF_ERROR(batch_.Flush());
  // DISTINCT keeps a set of the names seen (bounded by `limit` + 1), and
  // gives each name where it first appears.
  auto stmt = db_.Prepare(
      "SELECT DISTINCT m.key FROM trials t JOIN reports r "
      "ON r.trial_id = t.id, json_each(r.metrics) m "
      "WHERE t.experiment_id = ?1 AND json_valid(r.metrics) LIMIT ?2");
  if (!stmt.ok()) return stmt.error();
  stmt.value().Bind(1, experiment).Bind(2, limit + 1);
  auto names = FirstColumnTexts(stmt.value());
  if (names.ok() && static_cast<int64_t>(names.value().size()) > limit) {
    return core::InvalidArgument("the reports have more than " +
                                 std::to_string(limit) + " metric names");
  }
  return names;
}

core::Result<std::optional<int64_t>> ReportTable::LastOffset(
    core::TrialId trial, int64_t attempt) {
  TUNER_RETURN_IF_ERROR(batch_.Flush());
  auto stmt = db_.Prepare(
      "SELECT offset FROM reports WHERE trial_id = ?1 AND attempt = ?2 AND "
      "offset IS NOT NULL ORDER BY seq DESC LIMIT 1");
  if (!stmt.ok()) return stmt.error();
  Statement& s = stmt.value();
  s.Bind(1, trial).Bind(2, attempt);
  auto row = s.Step();
  if (!row.ok()) return row.error();
  if (!row.value()) return std::optional<int64_t>();
  return std::optional<int64_t>(s.Int(0));
}

}  // namespace tuner::storage
