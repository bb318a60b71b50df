// TrialStore's reads of reports and decisions (the rest: trial_store.cc).
#include <limits>

#include "storage/json_codec.h"
#include "storage/trial_row.h"
#include "storage/trial_store.h"

namespace tuner::storage {

core::Result<std::vector<ReportRecord>> TrialStore::ListReports(
    core::TrialId trial, int64_t after_seq, int64_t limit) {
  TUNER_RETURN_IF_ERROR(batch_.Flush());
  auto stmt = db_->Prepare(
      "SELECT r.seq, r.time, r.value, r.metrics, r.attempt, r.offset, "
      "e.metric FROM reports r JOIN trials t ON t.id = r.trial_id "
      "JOIN experiments e ON e.id = t.experiment_id "
      "WHERE r.trial_id = ?1 AND r.seq > ?2 ORDER BY r.seq LIMIT ?3");
  if (!stmt.ok()) return stmt.error();
  Statement& s = stmt.value();
  s.Bind(1, trial);
  s.Bind(2, after_seq);
  s.Bind(3, limit);  // negative: no limit
  std::vector<ReportRecord> out;
  TUNER_RETURN_IF_ERROR(EachRow(s, [&] {
    auto offset = s.OptionalDouble(5);
    core::Metrics metrics = MetricsFromJson(s.Text(3));
    auto value = ReportValue(s.OptionalDouble(2), metrics, s.Text(6));
    out.push_back({trial, s.Int(0), s.OptionalDouble(1), value,
                   std::move(metrics), s.Int(4),
                   offset
                       ? std::optional<int64_t>(static_cast<int64_t>(*offset))
                       : std::nullopt});
    return core::Status::Ok();
  }));
  return out;
}

core::Result<std::vector<DecisionRecord>> TrialStore::ListDecisions(
    ExperimentId experiment) {
  // Every decision: those made after the beginning of time.
  auto feed = Changes();
  if (!feed.ok()) return feed.error();
  return feed.value().ListDecisionsSince(
      experiment, -std::numeric_limits<double>::infinity());
}

core::Result<std::vector<CurvePoint>> TrialStore::ListCurves(
    ExperimentId experiment) {
  // Every report: those made after the beginning of time.
  auto feed = Changes();
  if (!feed.ok()) return feed.error();
  return feed.value().ListCurvesSince(
      experiment, -std::numeric_limits<double>::infinity(), "");
}

core::Result<bool> TrialStore::HasTrialCounts() {
  if (has_trial_counts_) return *has_trial_counts_;
  auto stmt = db_->Prepare(
      "SELECT 1 FROM sqlite_master WHERE type = 'table' "
      "AND name = 'trial_counts'");
  if (!stmt.ok()) return stmt.error();
  auto row = stmt.value().Step();
  if (!row.ok()) return row.error();
  has_trial_counts_ = row.value();
  return *has_trial_counts_;
}

core::Result<std::map<core::TrialStatus, int64_t>> TrialStore::CountTrials(
    ExperimentId experiment) {
  auto counted = HasTrialCounts();
  if (!counted.ok()) return counted.error();
  if (counts_ && db_->InTransaction()) TUNER_RETURN_IF_ERROR(counts_->Flush());
  auto stmt = db_->Prepare(
      counted.value()
          ? "SELECT status, n FROM trial_counts WHERE experiment_id = ?1"
          : "SELECT status, COUNT(*) FROM trials WHERE experiment_id = ?1 "
            "GROUP BY status");
  if (!stmt.ok()) return stmt.error();
  Statement& s = stmt.value();
  s.Bind(1, experiment);
  std::map<core::TrialStatus, int64_t> out;
  TUNER_RETURN_IF_ERROR(EachRow(s, [&] {
    auto status = core::ParseTrialStatus(s.Text(0));
    if (status && s.Int(1) > 0) out[*status] = s.Int(1);
    return core::Status::Ok();
  }));
  return out;
}

core::Result<ChangeFeed> TrialStore::Changes() {
  TUNER_RETURN_IF_ERROR(batch_.Flush());
  return ChangeFeed(*db_, exit_times_);
}

}  // namespace tuner::storage
