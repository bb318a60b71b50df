// TrialTable's reads (the rest: trial_table.cc).
#include <algorithm>

#include "storage/trial_row.h"
#include "storage/trial_table.h"

namespace tuner::storage {

namespace {

// More trials than any experiment has (2^53): a stored count past it was
// written by hand.
constexpr int64_t kMaxCount = int64_t{1} << 53;

}  // namespace

core::Result<core::Params> TrialTable::LoadParams(core::TrialId trial) {
  Statement& s = statements_->select_params;
  s.Bind(1, trial);
  core::Params params;
  TUNER_RETURN_IF_ERROR(EachRow(s, [&] {
    params.emplace_back(s.Text(0), ReadParamValue(s, s.Text(1), 2));
    return core::Status::Ok();
  }));
  s.Reset();
  return params;
}

core::Result<std::vector<TrialRecord>> TrialTable::QueryTrials(
    Statement& stmt) {
  std::vector<TrialRecord> out;
  TUNER_RETURN_IF_ERROR(EachRow(stmt, [&] {
    out.push_back(ReadTrialRow(stmt));
    return core::Status::Ok();
  }));
  for (auto& trial : out) {
    auto params = LoadParams(trial.id);
    if (!params.ok()) return params.error();
    trial.params = std::move(params).value();
  }
  return out;
}

core::Result<std::vector<TrialRecord>> TrialTable::List(
    ExperimentId experiment) {
  TUNER_RETURN_IF_ERROR(batch_.Flush());
  auto stmt = db_.Prepare(std::string("SELECT ") + TrialColumns(exit_times_) +
                          " FROM trials WHERE experiment_id = ?1 ORDER BY id");
  if (!stmt.ok()) return stmt.error();
  stmt.value().Bind(1, experiment);
  return QueryTrials(stmt.value());
}

core::Result<std::optional<TrialRecord>> TrialTable::Find(core::TrialId trial) {
  TUNER_RETURN_IF_ERROR(batch_.Flush());
  auto stmt = db_.Prepare(std::string("SELECT ") + TrialColumns(exit_times_) +
                          " FROM trials WHERE id = ?1");
  if (!stmt.ok()) return stmt.error();
  stmt.value().Bind(1, trial);
  auto rows = QueryTrials(stmt.value());
  if (!rows.ok()) return rows.error();
  if (rows.value().empty()) return std::optional<TrialRecord>();
  return std::optional<TrialRecord>(std::move(rows.value().front()));
}

core::Result<std::vector<TrialRecord>> TrialTable::Best(
    const ExperimentRecord& experiment, int64_t limit, BestBy by) {
  std::vector<TrialRecord> out;
  TUNER_RETURN_IF_ERROR(batch_.Flush());
  TUNER_RETURN_IF_ERROR(InReadTransaction(db_, [&]() -> core::Status {
    auto stmt = PrepareBest(experiment, limit, by);
    if (!stmt.ok()) return stmt.status();
    auto rows = QueryTrials(stmt.value());
    if (!rows.ok()) return rows.status();
    out = std::move(rows).value();
    return core::Status::Ok();
  }));
  return out;
}

core::Result<bool> TrialTable::BoardHolds(ExperimentId experiment,
                                          int64_t limit) {
  auto stmt = db_.Prepare(
      "SELECT board_complete OR board_size >= ?2 FROM experiments WHERE id = "
      "?1");
  if (!stmt.ok()) return stmt.error();
  auto row = stmt.value().Bind(1, experiment).Bind(2, limit).Step();
  if (!row.ok()) return row.error();
  return row.value() && stmt.value().Int(0) != 0;
}

core::Result<Statement> TrialTable::PrepareBest(
    const ExperimentRecord& experiment, int64_t limit, BestBy by) {
  LastOrderColumn column =
      last_keys_ ? LastOrderColumn::kLastKey : LastOrderColumn::kLastValue;
  if (by == BestBy::kLast && boards_ && limit >= 0) {
    auto holds = BoardHolds(experiment.id, limit);
    if (!holds.ok()) return holds.error();
    if (holds.value()) column = LastOrderColumn::kBoard;
  }
  auto stmt = db_.Prepare(std::string("SELECT ") + TrialColumns(exit_times_) +
                          " FROM trials " +
                          BestTrialsWhereOrder(experiment.mode, by, column));
  if (!stmt.ok()) return stmt.error();
  stmt.value().Bind(1, experiment.id).Bind(2, limit);
  return stmt;
}

std::string BestTrialsWhereOrder(core::Mode mode, BestBy by,
                                 LastOrderColumn column) {
  std::string order = mode == core::Mode::kMax ? "DESC" : "ASC";
  // ±inf (which an older version stored as a trial's value; a NaN is
  // stored as NULL) rank after every finite value, and time, in either
  // mode: a trial that reported inf is the best neither in max mode nor in
  // min mode.
  auto bounded = [](const std::string& column) {
    return "abs(" + column + ") <= 1.7976931348623157e308";
  };
  auto finite = [&](const std::string& column) {
    return "(" + bounded(column) + ") DESC";
  };
  auto ranked = [&](const std::string& column, const std::string& order) {
    return column + " IS NOT NULL ORDER BY " + finite(column) + ", " +
           finite("last_time") + ", last_time DESC, " + column + order;
  };
  std::string where_order;
  if (by == BestBy::kBest) {
    // Unindexed: a value that is no number (a row written by hand) ranks
    // after every number too, where SQLite would sort text above them.
    where_order =
        "best_value IS NOT NULL ORDER BY (typeof(best_value) = "
        "'real' AND " +
        bounded("best_value") + ") DESC, best_value " + order;
  } else if (column == LastOrderColumn::kBoard) {
    where_order = "contender = 1 AND " + ranked("last_key", "");
  } else if (column == LastOrderColumn::kLastKey) {
    where_order = ranked("last_key", "");
  } else {
    where_order = ranked("last_value", " " + order);
  }
  return "WHERE experiment_id = ?1 AND " + where_order + ", id LIMIT ?2";
}

core::Status TrialTable::ForEach(
    ExperimentId experiment,
    const std::function<core::Status(const TrialRecord&)>& visit) {
  TUNER_RETURN_IF_ERROR(batch_.Flush());
  // trial_index order walks the (experiment_id, trial_index) index: no
  // sort, so no temporary copy of the rows.
  auto stmt = db_.Prepare(std::string("SELECT ") + TrialColumns(exit_times_) +
                          " FROM trials WHERE experiment_id = ?1 "
                          "ORDER BY trial_index");
  if (!stmt.ok()) return stmt.error();
  stmt.value().Bind(1, experiment);
  return InReadTransaction(db_,
                           [&] { return VisitTrials(stmt.value(), visit); });
}

core::Status TrialTable::ForEachBest(
    const ExperimentRecord& experiment, int64_t limit, BestBy by,
    const std::function<core::Status(const TrialRecord&)>& visit) {
  TUNER_RETURN_IF_ERROR(batch_.Flush());
  return InReadTransaction(db_, [&]() -> core::Status {
    auto stmt = PrepareBest(experiment, limit, by);
    if (!stmt.ok()) return stmt.status();
    return VisitTrials(stmt.value(), visit);
  });
}

core::Status TrialTable::VisitTrials(
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

core::Result<std::vector<std::string>> TrialTable::ParamNames(
    ExperimentId experiment) {
  TUNER_RETURN_IF_ERROR(batch_.Flush());
  // DISTINCT keeps only the names seen (no sort of every row), each where
  // it first appears: the first trial's order.
  auto stmt = db_.Prepare(
      "SELECT DISTINCT p.name FROM trials t JOIN params p "
      "ON p.trial_id = t.id WHERE t.experiment_id = ?1");
  if (!stmt.ok()) return stmt.error();
  stmt.value().Bind(1, experiment);
  return FirstColumnTexts(stmt.value());
}

core::Result<bool> TrialTable::HasTrialCounts() {
  if (has_trial_counts_) return *has_trial_counts_;
  auto stmt = db_.Prepare(
      "SELECT 1 FROM sqlite_master WHERE type = 'table' "
      "AND name = 'trial_counts'");
  if (!stmt.ok()) return stmt.error();
  auto row = stmt.value().Step();
  if (!row.ok()) return row.error();
  has_trial_counts_ = row.value();
  return *has_trial_counts_;
}

core::Result<std::map<core::TrialStatus, int64_t>> TrialTable::Count(
    ExperimentId experiment) {
  auto counted = HasTrialCounts();
  if (!counted.ok()) return counted.error();
  if (counts_ && db_.InTransaction()) TUNER_RETURN_IF_ERROR(counts_->Flush());
  auto stmt = db_.Prepare(
      counted.value()
          ? "SELECT status, n FROM trial_counts WHERE experiment_id = ?1"
          : "SELECT status, COUNT(*) FROM trials WHERE experiment_id = ?1 "
            "GROUP BY status");
  if (!stmt.ok()) return stmt.error();
  Statement& s = stmt.value();
  s.Bind(1, experiment);
  std::map<core::TrialStatus, int64_t> out;
  std::optional<int64_t> all;  // schema 14: every trial (TrialCounts::kAll)
  int64_t others = 0;          // trials in any other status but running
  TUNER_RETURN_IF_ERROR(EachRow(s, [&] {
    std::string name = s.Text(0);
    // A count past any real one (a row written by hand) is capped, so
    // that a sum of them cannot overflow.
    int64_t n = std::clamp<int64_t>(s.Int(1), 0, kMaxCount);
    auto status = core::ParseTrialStatus(name);
    if (name == TrialCounts::kAll) {
      all = n;
      return core::Status::Ok();
    }
    // A status this build does not know (a row written by hand, or by a
    // later version) is not running either.
    if (name != TrialCounts::kDerived) others = std::min(others + n, kMaxCount);
    if (status && n > 0) out[*status] = n;
    return core::Status::Ok();
  }));
  if (!all) return out;  // counted by status, running included
  // The running trials are every trial less those in another status.
  out.erase(core::TrialStatus::kRunning);
  if (*all > others) out[core::TrialStatus::kRunning] = *all - others;
  return out;
}

core::Result<RetryCounts> TrialTable::Retries(core::TrialId trial) {
  TUNER_RETURN_IF_ERROR(WriteAdded());
  auto stmt =
      db_.Prepare("SELECT failures, device_retries FROM trials WHERE id = ?1");
  if (!stmt.ok()) return stmt.error();
  Statement& s = stmt.value();
  s.Bind(1, trial);
  auto row = s.Step();
  if (!row.ok()) return row.error();
  if (!row.value()) return RetryCounts{};
  return RetryCounts{s.Int(0), s.Int(1)};
}

}  // namespace tuner::storage
