// ChangeFeed: what changed after a time. A report, decision or release is
// stamped when it is written, and a trial's reports all precede its end, so
// `ended_at > since` keeps every trial that can have newer reports.
#include "storage/change_feed.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "storage/trial_row.h"

namespace tuner::storage {

namespace {

// The trials of ?1 changed after ?2 (ListTrialsChangedSince's rule).
constexpr const char* kChangedTrials =
    " WHERE t.experiment_id = ?1 AND (t.ended_at IS NULL OR "
    "t.ended_at > ?2 OR t.created_at > ?2 OR t.started_at > ?2)";

// The reports of the curves read, those of the trials of ?1 that had not
// ended by ?2 and were made after it, that match `on` (a condition on the
// report `r` of the trial `t`).
std::string CurvesSelect(const std::string& column, const std::string& on) {
  return "SELECT r.trial_id, r.seq, r.attempt, r.time, " + column +
         ", r.created_at FROM trials t JOIN reports r ON r.trial_id = t.id "
         "AND " +
         on +
         " WHERE t.experiment_id = ?1 AND (t.ended_at IS NULL OR "
         "t.ended_at > ?2) AND r.created_at > ?2";
}

// Appends one trial's points (by seq, each with a time) to `out`, thinned
// by time step as ListCurvesSince says, still by seq.
void AppendThinned(const std::vector<CurvePoint>& trial,
                   const std::set<double>& milestones,
                   std::vector<CurvePoint>& out) {
  std::map<double, size_t> last_at;  // time -> its last point
  for (size_t i = 0; i < trial.size(); ++i) last_at[*trial[i].time] = i;
  std::vector<size_t> kept;
  size_t step = 0, next_power = 1;
  for (auto it = last_at.begin(); it != last_at.end(); ++it) {
    bool power = ++step == next_power;
    if (power) next_power *= 4;
    if (power || std::next(it) == last_at.end() || milestones.count(it->first))
      kept.push_back(it->second);
  }
  std::sort(kept.begin(), kept.end());
  for (size_t i : kept) out.push_back(trial[i]);
}

}  // namespace

core::Result<std::vector<TrialRecord>> ChangeFeed::ListTrialsChangedSince(
    ExperimentId experiment, double since) {
  auto rows = db_.Prepare(std::string("SELECT ") + TrialColumns(exit_times_) +
                          " FROM trials t" + kChangedTrials + " ORDER BY t.id");
  if (!rows.ok()) return rows.error();
  rows.value().Bind(1, experiment).Bind(2, since);
  std::vector<TrialRecord> out;
  TUNER_RETURN_IF_ERROR(EachRow(rows.value(), [&] {
    out.push_back(ReadTrialRow(rows.value()));
    return core::Status::Ok();
  }));
  // Their params in one read, in the same trial order.
  auto params = db_.Prepare(
      std::string("SELECT p.trial_id, p.name, p.kind, p.value FROM trials t "
                  "JOIN params p ON p.trial_id = t.id") +
      kChangedTrials + " ORDER BY p.trial_id, p.position");
  if (!params.ok()) return params.error();
  Statement& s = params.value();
  s.Bind(1, experiment).Bind(2, since);
  size_t at = 0;
  for (;;) {
    auto row = s.Step();
    if (!row.ok()) return row.error();
    if (!row.value()) return out;
    while (at < out.size() && out[at].id < s.Int(0)) ++at;
    if (at == out.size()) return out;
    if (out[at].id != s.Int(0)) continue;
    out[at].params.emplace_back(s.Text(1), ReadParamValue(s, s.Text(2), 3));
  }
}

core::Result<std::set<double>> ChangeFeed::RungMilestones(
    ExperimentId experiment) {
  auto stmt = db_.Prepare(
      "SELECT DISTINCT d.milestone FROM decisions d JOIN trials t ON t.id = "
      "d.trial_id WHERE t.experiment_id = ?1");
  if (!stmt.ok()) return stmt.error();
  stmt.value().Bind(1, experiment);
  std::set<double> out;
  TUNER_RETURN_IF_ERROR(EachRow(stmt.value(), [&] {
    out.insert(stmt.value().Double(0));
    return core::Status::Ok();
  }));
  return out;
}

core::Result<std::vector<CurvePoint>> ChangeFeed::ListCurvesSince(
    ExperimentId experiment, double since, const std::string& metric,
    std::optional<int64_t> overview_above, bool* thinned) {
  if (thinned) *thinned = false;
  // The metric at its JSON path ($."name"; the API refuses names with
  // quotes) when it is a number; NULL otherwise: a non-finite value is
  // stored as the string "inf", "-inf" or "nan", which is no point.
  std::string column = metric.empty()
                           ? "r.value"
                           : "CASE json_type(r.metrics, ?3) WHEN 'real' THEN "
                             "json_extract(r.metrics, ?3) WHEN 'integer' THEN "
                             "json_extract(r.metrics, ?3) END";
  std::set<double> milestones;
  if (overview_above) {
    auto got = RungMilestones(experiment);
    if (!got.ok()) return got.error();
    milestones = std::move(got).value();
  }
  std::string on = overview_above
                       ? "r.time IS NOT NULL AND " + column + " IS NOT NULL"
                       : "1";
  auto stmt =
      db_.Prepare(CurvesSelect(column, on) + " ORDER BY r.trial_id, r.seq");
  if (!stmt.ok()) return stmt.error();
  Statement& s = stmt.value();
  s.Bind(1, experiment);
  s.Bind(2, since);
  if (!metric.empty()) s.Bind(3, "$.\"" + metric + "\"");
  // Every point while there are few; else each trial's, thinned.
  std::vector<CurvePoint> every, few, trial;
  int64_t count = 0;
  TUNER_RETURN_IF_ERROR(EachRow(s, [&] {
    CurvePoint point{s.Int(0),
                     s.Int(1),
                     s.Int(2),
                     s.OptionalDouble(3),
                     s.OptionalDouble(4),
                     s.Double(5)};
    if (!overview_above || ++count <= *overview_above) every.push_back(point);
    if (!overview_above) return core::Status::Ok();
    if (!trial.empty() && trial.back().trial != point.trial) {
      AppendThinned(trial, milestones, few);
      trial.clear();
    }
    trial.push_back(point);
    return core::Status::Ok();
  }));
  if (!overview_above || count <= *overview_above) return every;
  AppendThinned(trial, milestones, few);
  if (thinned) *thinned = true;
  return few;
}

core::Result<std::vector<DecisionRecord>> ChangeFeed::ListDecisionsSince(
    ExperimentId experiment, double since) {
  auto stmt = db_.Prepare(
      "SELECT d.trial_id, d.rung, d.milestone, d.value, d.rank, d.n, "
      "d.decision, d.bracket FROM decisions d JOIN trials t ON t.id = "
      "d.trial_id WHERE t.experiment_id = ?1 AND d.created_at > ?2 "
      "ORDER BY d.id");
  if (!stmt.ok()) return stmt.error();
  Statement& s = stmt.value();
  s.Bind(1, experiment);
  s.Bind(2, since);
  std::vector<DecisionRecord> out;
  TUNER_RETURN_IF_ERROR(EachRow(s, [&] {
    DecisionRecord r;
    r.trial = s.Int(0);
    r.decision.rung = static_cast<int>(s.Int(1));
    r.decision.milestone = s.Double(2);
    r.decision.value =
        s.OptionalDouble(3).value_or(std::numeric_limits<double>::quiet_NaN());
    r.decision.rank = s.Int(4);
    r.decision.n = s.Int(5);
    r.decision.verdict =
        core::ParseRungVerdict(s.Text(6)).value_or(core::RungVerdict::kStop);
    r.decision.bracket = static_cast<int>(s.Int(7));
    out.push_back(r);
    return core::Status::Ok();
  }));
  return out;
}

core::Result<std::vector<LeaseRecord>> ChangeFeed::ListLeasesSince(
    ExperimentId experiment, double since) {
  auto stmt = db_.Prepare(
      std::string("SELECT ") + kLeaseColumns +
      " FROM leases WHERE trial_id IN (SELECT id FROM trials WHERE "
      "experiment_id = ?1) AND (acquired_at > ?2 OR released_at IS NULL OR "
      "released_at > ?2) ORDER BY id");
  if (!stmt.ok()) return stmt.error();
  Statement& s = stmt.value();
  s.Bind(1, experiment);
  s.Bind(2, since);
  return ReadLeaseRows(s);
}

}  // namespace tuner::storage
