#include "storage/trial_store.h"

#include <cmath>
#include <limits>
#include <set>
#include <utility>

#include "storage/json_codec.h"
#include "storage/schema.h"
#include "storage/trial_row.h"

namespace tuner::storage {

namespace {}  // namespace

struct TrialStore::Statements {
  Statement insert_trial, mark_running, finish_trial;
  Statement update_last, select_params, trial_state, trial_rank;
};

TrialStore::TrialStore(std::unique_ptr<Database> db, bool read_only)
    : db_(std::move(db)),
      batch_(*db_, BatchMemory(), read_only),
      experiments_(*db_, batch_),
      leases_(*db_, batch_),
      read_only_(read_only) {}

TrialStore::~TrialStore() { (void)FlushHeld(); }

core::Result<std::unique_ptr<TrialStore>> TrialStore::Open(
    const std::string& path, BoardLimits board) {
  auto db = Database::Open(path, false);
  if (!db.ok()) return db.error();
  Database& handle = *db.value();
  // A private in-memory database (tests, benchmarks) needs no journal.
  // Switching to WAL needs a moment alone with the file: another process
  // opening it at the same time makes it busy, so it is retried.
  bool memory = path == ":memory:";
  TUNER_RETURN_IF_ERROR(handle.ExecuteRetrying(
      memory ? "PRAGMA journal_mode=OFF" : "PRAGMA journal_mode=WAL"));
  TUNER_RETURN_IF_ERROR(handle.Execute(
      memory ? "PRAGMA foreign_keys=ON;"
             : "PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON; "
               "PRAGMA cache_size=-65536;"));
  if (auto s = Migrate(handle); !s.ok()) {
    return core::Error{s.error().code, path + ": " + s.message()};
  }
  // Best effort: a full or busy file gets its reserve at a later open.
  (void)handle.Execute(
      "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE "
      "i < 16) INSERT OR IGNORE INTO reserve (id, pad) SELECT i, "
      "zeroblob(3800) FROM n");
  std::unique_ptr<TrialStore> store(
      new TrialStore(std::move(db).value(), false));
  store->board_limits_ = board;
  TUNER_RETURN_IF_ERROR(store->PrepareStatements());
  return store;
}

core::Result<std::unique_ptr<TrialStore>> TrialStore::OpenReadOnly(
    const std::string& path) {
  auto db = Database::Open(path, true);
  if (!db.ok()) return db.error();
  std::unique_ptr<TrialStore> store(
      new TrialStore(std::move(db).value(), true));
  if (auto s = store->PrepareStatements(); !s.ok()) {
    return core::IoError(path + " is not a tuner database: " + s.message());
  }
  return store;
}

namespace {

// The assignments that record a trial's newest report: `time` (an SQL
// expression), and the parameters ?value, ?mode ('max' or 'min') and ?best
// (NULL: no report since the row was written; the row keeps its values).
std::string LastValuesAssignments(const std::string& time, int value, int mode,
                                  int best, bool last_key) {
  auto p = [](int n) { return "?" + std::to_string(n); };
  std::string out = "last_time = " + time + ", last_value = COALESCE(" +
                    p(value) + ", last_value), best_value = CASE WHEN " +
                    p(best) + " IS NULL THEN best_value WHEN best_value IS " +
                    "NULL THEN " + p(best) + " WHEN " + p(mode) +
                    " = 'max' THEN max(best_value, " + p(best) +
                    ") ELSE min(best_value, " + p(best) + ") END";
  if (!last_key) return out;
  return out + ", last_key = CASE WHEN " + p(value) +
         " IS NULL THEN last_key WHEN " + p(mode) + " = 'max' THEN -" +
         p(value) + " ELSE " + p(value) + " END";
}

// Which of the trials table's columns that later schemas added it has (a
// database of an older schema, opened read-only, may lack them).
core::Result<std::set<std::string>> LaterTrialsColumns(Database& db) {
  auto stmt = db.Prepare(
      "SELECT name FROM pragma_table_info('trials') WHERE name IN "
      "('exited_at', 'last_key', 'contender')");
  if (!stmt.ok()) return stmt.error();
  std::set<std::string> columns;
  TUNER_RETURN_IF_ERROR(EachRow(stmt.value(), [&] {
    columns.insert(stmt.value().Text(0));
    return core::Status::Ok();
  }));
  return columns;
}

}  // namespace

core::Status TrialStore::PrepareStatements() {
  if (read_only_) {
    auto columns = LaterTrialsColumns(*db_);
    if (!columns.ok()) return columns.status();
    exit_times_ = columns.value().contains("exited_at");
    last_keys_ = columns.value().contains("last_key");
    boards_ = columns.value().contains("contender");
  }
  // A reader prepares the statements it reads with (params, a trial's
  // state); the writes and the rank are the writer's.
  auto prepare = [&](const std::string& sql, bool writer_only) {
    return db_->Prepare(read_only_ && writer_only ? "SELECT 1" : sql);
  };
  const std::string queries[] = {
      "INSERT INTO trials (experiment_id, trial_index, status, created_at) "
      "VALUES (?1, ?2, 'pending', $now)",
      "UPDATE trials SET status = 'running', attempts = attempts + 1, "
      "started_at = $now, ended_at = NULL, exit_code = NULL, reason = '' "
      "WHERE id = ?1",
      // A paused trial that ends without running again keeps its
      // pause's end and exit code. ?5 is the end's time; ?7..?10 the
      // trial's newest report not yet written (LastValuesAssignments).
      std::string("UPDATE trials SET status = ?2, reason = ?4, exit_code = "
                  "COALESCE(?3, CASE WHEN status = 'paused' THEN exit_code "
                  "END), ") +
          LastValuesAssignments("COALESCE(?5, ?7, last_time)", 8, 9, 10,
                                last_keys_) +
          ", ended_at = $now" +
          (boards_ ? ", contender = COALESCE(?11, contender)" : "") +
          (exit_times_
               ? ", exited_at = CASE WHEN ?6 < $now THEN max(?6, started_at) "
                 "WHEN status = 'paused' THEN COALESCE(exited_at, ended_at) "
                 "END WHERE id = ?1"
               : " WHERE id = ?1"),
      "UPDATE trials SET " + LastValuesAssignments("?2", 3, 4, 5, last_keys_) +
          (boards_ ? ", contender = COALESCE(?6, contender)" : "") +
          " WHERE id = ?1",
      "SELECT name, kind, value FROM params WHERE trial_id = ?1 "
      "ORDER BY position",
      boards_ ? "SELECT experiment_id, status, contender, last_time, last_key "
                "FROM trials WHERE id = ?1"
              : "SELECT experiment_id, status FROM trials WHERE id = ?1",
      // A trial's rank, for the leaderboard (not RETURNING: its temporary
      // table costs more than this lookup of a row in the cache).
      boards_ ? "SELECT experiment_id, contender, last_time, last_key FROM "
                "trials WHERE id = ?1"
              : "SELECT 1",
  };
  std::vector<Statement> prepared;
  for (const auto& sql : queries) {
    bool writer_only = prepared.size() < 4 || prepared.size() == 6;
    auto stmt = prepare(sql, writer_only);
    if (!stmt.ok()) return stmt.error();
    prepared.push_back(std::move(stmt).value());
  }
  statements_.reset(new Statements{
      std::move(prepared[0]), std::move(prepared[1]), std::move(prepared[2]),
      std::move(prepared[3]), std::move(prepared[4]), std::move(prepared[5]),
      std::move(prepared[6])});
  if (read_only_) return core::Status::Ok();
  auto counts = TrialCounts::Prepare(*db_);
  if (!counts.ok()) return counts.error();
  counts_.emplace(std::move(counts).value());
  auto board = Leaderboard::Prepare(
      *db_, board_limits_, [this](core::TrialId trial, bool on_board) {
        if (trial == 0) {
          ranks_.clear();
        } else if (auto it = ranks_.find(trial); it != ranks_.end()) {
          it->second.on_board = on_board;
        }
      });
  if (!board.ok()) return board.error();
  board_.emplace(std::move(board).value());
  params_.emplace(
      *db_, "INSERT INTO params (trial_id, position, name, kind, value)", 5);
  reports_.emplace(*db_,
                   "INSERT INTO reports (trial_id, seq, time, value, metrics, "
                   "attempt, offset, created_at)",
                   8);
  decisions_.emplace(*db_,
                     "INSERT INTO decisions (trial_id, rung, milestone, value, "
                     "rank, n, decision, bracket, created_at)",
                     9);
  return core::Status::Ok();
}

core::Result<core::TrialId> TrialStore::AddTrial(ExperimentId experiment,
                                                 int64_t index,
                                                 const core::Params& params) {
  TUNER_RETURN_IF_ERROR(BeginIfNeeded());
  TUNER_RETURN_IF_ERROR(
      statements_->insert_trial.Bind(1, experiment).Bind(2, index).Run());
  core::TrialId trial = db_->LastInsertRowId();
  counts_->Move(trial, experiment, std::nullopt, "pending");
  ranks_[trial] = RankState{experiment};
  for (size_t i = 0; i < params.size(); ++i) {
    TUNER_RETURN_IF_ERROR(params_->Add(
        trial, static_cast<int64_t>(i), params[i].first,
        ParamKind(params[i].second), ParamColumn(params[i].second)));
  }
  return trial;
}

core::Status TrialStore::MarkRunning(core::TrialId trial) {
  TUNER_RETURN_IF_ERROR(BeginIfNeeded());
  return ChangeTrial(trial, "running",
                     statements_->mark_running.Bind(1, trial));
}

core::Status TrialStore::ChangeTrial(core::TrialId trial,
                                     const std::string& status,
                                     Statement& update) {
  std::optional<TrialCounts::TrialState> was = counts_->Moved(trial);
  if (!was) {
    Statement& state = statements_->trial_state;
    auto row = state.Bind(1, trial).Step();
    if (!row.ok()) return row.error();
    if (row.value()) {
      was.emplace(state.Int(0), state.Text(1));
      if (boards_) {
        ranks_.try_emplace(
            trial, RankState{state.Int(0), state.Int(2) != 0,
                             state.OptionalDouble(3), state.OptionalDouble(4)});
      }
    }
    state.Reset();
  }
  TUNER_RETURN_IF_ERROR(update.Run());
  if (was) counts_->Move(trial, was->first, was->second, status);
  return core::Status::Ok();
}

core::Status TrialStore::FinishTrial(core::TrialId trial, const TrialEnd& end) {
  TUNER_RETURN_IF_ERROR(BeginIfNeeded());
  Statement& s = statements_->finish_trial;
  s.Bind(1, trial).Bind(2, core::ToString(end.status));
  if (end.exit_code) {
    s.Bind(3, *end.exit_code);
  } else {
    s.BindNull(3);
  }
  s.Bind(4, end.reason).Bind(5, end.last_time).Bind(6, end.exited_at);
  // The trial's own pending values go in the same UPDATE, and so does its
  // place on the board. As the UPDATE: last_time = COALESCE(end, pending,
  // its own), last_key the pending value's, or its own.
  std::optional<double> time = AsStored(end.last_time);
  std::optional<double> value;
  core::Mode mode = core::Mode::kMax;
  auto pending = pending_last_.find(trial);
  if (pending == pending_last_.end()) {
    for (int p : {7, 8, 9, 10}) s.BindNull(p);
  } else {
    const PendingLast& last = pending->second;
    s.Bind(7, last.time).Bind(8, last.value);
    s.Bind(9, core::ToString(last.mode)).Bind(10, last.best);
    if (!time) time = last.time;
    value = last.value;
    mode = last.mode;
  }
  std::optional<bool> contender;
  if (time || value) {
    auto placed =
        PlaceOnBoard(trial, /*replaces_time=*/false, time, value, mode);
    if (!placed.ok()) return placed.status();
    contender = placed.value();
  }
  BindContender(s, 11, contender);
  core::Status written =
      ChangeTrial(trial, std::string(core::ToString(end.status)), s);
  if (written.ok() && pending != pending_last_.end()) {
    pending_last_.erase(pending);
  }
  if (!time && !value) return written;
  return AfterPlaced(trial, written);
}

core::Result<core::Params> TrialStore::LoadParams(core::TrialId trial) {
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

core::Result<std::vector<TrialRecord>> TrialStore::QueryTrials(
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

core::Result<std::vector<TrialRecord>> TrialStore::ListTrials(
    ExperimentId experiment) {
  TUNER_RETURN_IF_ERROR(batch_.Flush());
  auto stmt = db_->Prepare(std::string("SELECT ") + TrialColumns(exit_times_) +
                           " FROM trials WHERE experiment_id = ?1 ORDER BY id");
  if (!stmt.ok()) return stmt.error();
  stmt.value().Bind(1, experiment);
  return QueryTrials(stmt.value());
}

core::Result<std::optional<TrialRecord>> TrialStore::FindTrial(
    core::TrialId trial) {
  TUNER_RETURN_IF_ERROR(batch_.Flush());
  auto stmt = db_->Prepare(std::string("SELECT ") + TrialColumns(exit_times_) +
                           " FROM trials WHERE id = ?1");
  if (!stmt.ok()) return stmt.error();
  stmt.value().Bind(1, trial);
  auto rows = QueryTrials(stmt.value());
  if (!rows.ok()) return rows.error();
  if (rows.value().empty()) return std::optional<TrialRecord>();
  return std::optional<TrialRecord>(std::move(rows.value().front()));
}

core::Result<std::vector<TrialRecord>> TrialStore::BestTrials(
    const ExperimentRecord& experiment, int64_t limit, BestBy by) {
  std::vector<TrialRecord> out;
  TUNER_RETURN_IF_ERROR(batch_.Flush());
  TUNER_RETURN_IF_ERROR(InReadTransaction([&]() -> core::Status {
    auto stmt = PrepareBest(experiment, limit, by);
    if (!stmt.ok()) return stmt.status();
    auto rows = QueryTrials(stmt.value());
    if (!rows.ok()) return rows.status();
    out = std::move(rows).value();
    return core::Status::Ok();
  }));
  return out;
}

core::Result<bool> TrialStore::BoardHolds(ExperimentId experiment,
                                          int64_t limit) {
  auto stmt = db_->Prepare(
      "SELECT board_complete OR board_size >= ?2 FROM experiments WHERE id = "
      "?1");
  if (!stmt.ok()) return stmt.error();
  auto row = stmt.value().Bind(1, experiment).Bind(2, limit).Step();
  if (!row.ok()) return row.error();
  return row.value() && stmt.value().Int(0) != 0;
}

core::Result<Statement> TrialStore::PrepareBest(
    const ExperimentRecord& experiment, int64_t limit, BestBy by) {
  LastOrderColumn column =
      last_keys_ ? LastOrderColumn::kLastKey : LastOrderColumn::kLastValue;
  if (by == BestBy::kLast && boards_ && limit >= 0) {
    auto holds = BoardHolds(experiment.id, limit);
    if (!holds.ok()) return holds.error();
    if (holds.value()) column = LastOrderColumn::kBoard;
  }
  auto stmt = db_->Prepare(std::string("SELECT ") + TrialColumns(exit_times_) +
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
  auto finite = [](const std::string& column) {
    return "(abs(" + column + ") <= 1.7976931348623157e308) DESC";
  };
  auto ranked = [&](const std::string& column, const std::string& order) {
    return column + " IS NOT NULL ORDER BY " + finite(column) + ", " +
           finite("last_time") + ", last_time DESC, " + column + order;
  };
  std::string where_order;
  if (by == BestBy::kBest) {
    where_order = "best_value IS NOT NULL ORDER BY " + finite("best_value") +
                  ", best_value " + order;
  } else if (column == LastOrderColumn::kBoard) {
    where_order = "contender = 1 AND " + ranked("last_key", "");
  } else if (column == LastOrderColumn::kLastKey) {
    where_order = ranked("last_key", "");
  } else {
    where_order = ranked("last_value", " " + order);
  }
  return "WHERE experiment_id = ?1 AND " + where_order + ", id LIMIT ?2";
}

core::Status TrialStore::AppendReport(const ReportRecord& report,
                                      core::Mode mode) {
  TUNER_RETURN_IF_ERROR(BeginIfNeeded());
  TUNER_RETURN_IF_ERROR(reports_->Add(
      report.trial, report.seq, RowBatch::Optional(report.time),
      RowBatch::Optional(report.value), MetricsToJson(report.metrics),
      report.attempt,
      report.offset ? RowBatch::Value(*report.offset) : RowBatch::Value(),
      db_->NowSeconds()));
  if (!report.time || !report.value || !std::isfinite(*report.value)) {
    return core::Status::Ok();
  }
  // The trial row is updated once per transaction, not once per report.
  PendingLast& last = pending_last_[report.trial];
  last.time = *report.time;
  last.value = *report.value;
  last.mode = mode;
  if (!last.best || core::Better(*report.value, *last.best, mode)) {
    last.best = *report.value;
  }
  return core::Status::Ok();
}

core::Status TrialStore::AppendDecision(const DecisionRecord& record) {
  TUNER_RETURN_IF_ERROR(BeginIfNeeded());
  const core::RungDecision& d = record.decision;
  return decisions_->Add(record.trial, static_cast<int64_t>(d.rung),
                         d.milestone, RowBatch::Optional(d.value), d.rank, d.n,
                         std::string(core::ToString(d.verdict)),
                         static_cast<int64_t>(d.bracket), db_->NowSeconds());
}

}  // namespace tuner::storage
