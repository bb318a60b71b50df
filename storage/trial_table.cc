// TrialTable's statements and writes (its reads: trial_table_reads.cc;
// the last values and the leaderboard: trial_table_board.cc).
#include "storage/trial_table.h"

#include <limits>
#include <set>
#include <utility>

#include "storage/trial_row.h"

namespace tuner::storage {

struct TrialTable::Statements {
  Statement max_id, mark_running, finish_trial;
  Statement update_last, select_params, trial_state, trial_rank;
};

TrialTable::TrialTable(Database& db, WriteBatch& batch)
    : db_(db), batch_(batch) {}

TrialTable::~TrialTable() = default;

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

core::Status TrialTable::Prepare(bool read_only, BoardLimits board) {
  if (read_only) {
    auto columns = LaterTrialsColumns(db_);
    if (!columns.ok()) return columns.status();
    exit_times_ = columns.value().contains("exited_at");
    last_keys_ = columns.value().contains("last_key");
    boards_ = columns.value().contains("contender");
  }
  // A reader prepares the statements it reads with (params, a trial's
  // state); the writes and the rank are the writer's.
  auto prepare = [&](const std::string& sql, bool writer_only) {
    return db_.Prepare(read_only && writer_only ? "SELECT 1" : sql);
  };
  const std::string queries[] = {
      "SELECT max(id) FROM trials",
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
  return read_only ? core::Status::Ok() : PrepareWriter(board);
}

core::Status TrialTable::PrepareWriter(BoardLimits limits) {
  auto counts = TrialCounts::Prepare(db_);
  if (!counts.ok()) return counts.error();
  counts_.emplace(std::move(counts).value());
  auto board = Leaderboard::Prepare(
      db_, limits, [this](core::TrialId trial, bool on_board) {
        if (trial == 0) {
          ranks_.clear();
        } else if (auto it = ranks_.find(trial); it != ranks_.end()) {
          it->second.on_board = on_board;
        }
      });
  if (!board.ok()) return board.error();
  board_.emplace(std::move(board).value());
  params_.emplace(db_,
                  "INSERT INTO params (trial_id, position, name, kind, value)",
                  5, [this] { return WriteAdded(); });
  trial_rows_.emplace(db_,
                      "INSERT INTO trials (id, experiment_id, trial_index, "
                      "status, attempts, created_at, started_at)",
                      7);
  return core::Status::Ok();
}

core::Result<core::TrialId> TrialTable::Add(ExperimentId experiment,
                                            int64_t index,
                                            const core::Params& params) {
  TUNER_RETURN_IF_ERROR(batch_.Begin());
  auto id = NextId();
  if (!id.ok()) return id.error();
  core::TrialId trial = id.value();
  added_.push_back({trial, experiment, index, db_.NowSeconds()});
  next_id_ = trial + 1;
  counts_->Move(trial, experiment, std::nullopt, "pending");
  ranks_[trial] = RankState{experiment};
  for (size_t i = 0; i < params.size(); ++i) {
    TUNER_RETURN_IF_ERROR(params_->Add(
        trial, static_cast<int64_t>(i), params[i].first,
        ParamKind(params[i].second), ParamColumn(params[i].second)));
  }
  return trial;
}

core::Status TrialTable::MarkRunning(core::TrialId trial) {
  TUNER_RETURN_IF_ERROR(batch_.Begin());
  if (AddedTrial* added = FindAdded(trial)) {
    counts_->Move(trial, added->experiment,
                  added->attempts > 0 ? "running" : "pending", "running");
    ++added->attempts;
    added->started_at = db_.NowSeconds();
    return core::Status::Ok();
  }
  return ChangeTrial(trial, "running",
                     statements_->mark_running.Bind(1, trial));
}

core::Result<core::TrialId> TrialTable::NextId() {
  if (next_id_) return *next_id_;
  Statement& max_id = statements_->max_id;
  auto row = max_id.Step();
  if (!row.ok()) return row.error();
  int64_t largest = max_id.Int(0);  // 0: no trial yet
  max_id.Reset();
  if (largest == std::numeric_limits<int64_t>::max()) {
    return core::IoError("no trial id is left in the database");
  }
  return largest + 1;
}

TrialTable::AddedTrial* TrialTable::FindAdded(core::TrialId trial) {
  if (added_.empty() || trial < added_.front().id) return nullptr;
  for (auto it = added_.rbegin(); it != added_.rend(); ++it) {
    if (it->id == trial) return &*it;
  }
  return nullptr;
}

core::Status TrialTable::WriteAdded() {
  if (added_.empty()) return core::Status::Ok();
  std::vector<AddedTrial> rows;
  rows.swap(added_);
  core::Status first = core::Status::Ok();
  auto note = [&first](const core::Status& status) {
    if (first.ok()) first = status;
  };
  for (const AddedTrial& t : rows) {
    note(trial_rows_->Add(t.id, t.experiment, t.index,
                          std::string(t.attempts > 0 ? "running" : "pending"),
                          t.attempts, t.created_at,
                          RowBatch::Optional(t.started_at)));
  }
  note(trial_rows_->Flush());
  return first;
}

core::Status TrialTable::ChangeTrial(core::TrialId trial,
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

core::Status TrialTable::Finish(core::TrialId trial, const TrialEnd& end) {
  TUNER_RETURN_IF_ERROR(batch_.Begin());
  TUNER_RETURN_IF_ERROR(WriteAdded());
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

core::Status TrialTable::SetShim(core::TrialId trial,
                                 std::optional<int64_t> pid,
                                 std::optional<int64_t> start) {
  TUNER_RETURN_IF_ERROR(batch_.Begin());
  TUNER_RETURN_IF_ERROR(WriteAdded());
  auto stmt = db_.Prepare(
      "UPDATE trials SET shim_pid = ?2, shim_start = ?3 WHERE id = ?1");
  if (!stmt.ok()) return stmt.status();
  Statement& s = stmt.value();
  s.Bind(1, trial);
  pid ? (void)s.Bind(2, *pid) : (void)s.BindNull(2);
  start ? (void)s.Bind(3, *start) : (void)s.BindNull(3);
  return s.Run();
}

core::Status TrialTable::SetRetries(core::TrialId trial,
                                    const RetryCounts& counts) {
  TUNER_RETURN_IF_ERROR(batch_.Begin());
  TUNER_RETURN_IF_ERROR(WriteAdded());
  auto stmt = db_.Prepare(
      "UPDATE trials SET failures = ?2, device_retries = ?3 WHERE id = ?1");
  if (!stmt.ok()) return stmt.status();
  Statement& s = stmt.value();
  s.Bind(1, trial).Bind(2, counts.failures).Bind(3, counts.device_retries);
  return s.Run();
}

}  // namespace tuner::storage
