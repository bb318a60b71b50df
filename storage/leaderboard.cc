#include "storage/leaderboard.h"

#include <cmath>
#include <tuple>
#include <utility>

namespace tuner::storage {

namespace {

// The ORDER BY of a rank, best first, and its reverse; the columns of
// the index trials_board (schema migration 13).
constexpr const char* kBestFirst =
    "(abs(last_key) <= 1.7976931348623157e308) DESC, "
    "(abs(last_time) <= 1.7976931348623157e308) DESC, "
    "last_time DESC, last_key, id";
constexpr const char* kWorstFirst =
    "(abs(last_key) <= 1.7976931348623157e308), "
    "(abs(last_time) <= 1.7976931348623157e308), "
    "last_time, last_key DESC, id DESC";

// 2 for a finite time, 1 for an infinite one, 0 for none.
int TimeClass(const std::optional<double>& time) {
  if (!time) return 0;
  return std::isfinite(*time) ? 2 : 1;
}

}  // namespace

bool RanksBefore(const Rank& a, const Rank& b) {
  bool a_finite = std::isfinite(a.key), b_finite = std::isfinite(b.key);
  if (a_finite != b_finite) return a_finite;
  int a_class = TimeClass(a.time), b_class = TimeClass(b.time);
  if (a_class != b_class) return a_class > b_class;
  if (a.time && b.time && *a.time != *b.time) return *a.time > *b.time;
  if (a.key != b.key) return a.key < b.key;
  return a.id < b.id;
}

core::Result<Leaderboard> Leaderboard::Prepare(Database& db, BoardLimits limits,
                                               Placed placed) {
  const std::string queries[] = {
      "SELECT board_size, board_complete FROM experiments WHERE id = ?1",
      std::string("SELECT last_key, last_time, id FROM trials WHERE "
                  "experiment_id = ?1 AND contender = 1 AND id != ?2 "
                  "ORDER BY ") +
          kWorstFirst + " LIMIT 1",
      "UPDATE trials SET contender = ?2 WHERE id = ?1",
      "UPDATE experiments SET board_size = ?2, board_complete = ?3 WHERE id = "
      "?1",
      std::string("UPDATE trials SET contender = 1 WHERE id IN (SELECT id "
                  "FROM trials WHERE experiment_id = ?1 AND contender = 0 "
                  "AND last_key IS NOT NULL ORDER BY ") +
          kBestFirst + " LIMIT ?2)",
  };
  std::vector<Statement> prepared;
  for (const auto& sql : queries) {
    auto stmt = db.Prepare(sql);
    if (!stmt.ok()) return stmt.error();
    prepared.push_back(std::move(stmt).value());
  }
  return Leaderboard(db, limits, std::move(placed), std::move(prepared[0]),
                     std::move(prepared[1]), std::move(prepared[2]),
                     std::move(prepared[3]), std::move(prepared[4]));
}

Leaderboard::Leaderboard(Database& db, BoardLimits limits, Placed placed,
                         Statement load, Statement worst,
                         Statement set_on_board, Statement store,
                         Statement fill)
    : db_(&db),
      limits_(limits),
      placed_(std::move(placed)),
      load_(std::move(load)),
      worst_(std::move(worst)),
      set_on_board_(std::move(set_on_board)),
      store_(std::move(store)),
      fill_(std::move(fill)) {}

// Deciding before the row is written is sound: the decision reads only
// the other trials' rows (Worst excludes the trial, or it is off the board)
// and the board's size, never the trial's own row; the refill, which reads
// every row, waits for Settle().
core::Result<std::optional<bool>> Leaderboard::Place(ExperimentId experiment,
                                                     const Rank& rank,
                                                     bool on_board) {
  auto board = Load(experiment);
  if (!board.ok()) return board.error();
  Board& b = *board.value();
  placement_ = Placement{experiment, rank.id, b, {}};
  core::Status placed =
      on_board ? KeepOn(experiment, b, rank) : TryOn(experiment, b, rank);
  if (!placed.ok()) {
    Abandon();
    return placed.error();
  }
  std::optional<bool> own;
  for (const auto& [trial, flag] : placement_->moves) {
    if (trial == rank.id) own = flag;
  }
  return own;
}

core::Status Leaderboard::Settle() {
  if (!placement_) return core::Status::Ok();
  Placement placement = std::move(*placement_);
  placement_.reset();
  for (const auto& [trial, flag] : placement.moves) {
    if (trial != placement.trial) {
      TUNER_RETURN_IF_ERROR(set_on_board_.Bind(1, trial)
                                .Bind(2, static_cast<int64_t>(flag))
                                .Run());
    }
    placed_(trial, flag);
  }
  auto board = Load(placement.experiment);
  if (!board.ok()) return board.status();
  Board& b = *board.value();
  if (!b.complete && b.size < limits_.low) return Fill(placement.experiment, b);
  return core::Status::Ok();
}

void Leaderboard::Abandon() {
  if (!placement_) return;
  boards_[placement_->experiment] = placement_->before;
  placement_.reset();
}

core::Result<Leaderboard::Board*> Leaderboard::Load(ExperimentId experiment) {
  auto found = boards_.find(experiment);
  if (found != boards_.end()) return &found->second;
  Board board;
  auto row = load_.Bind(1, experiment).Step();
  if (!row.ok()) return row.error();
  if (row.value()) {
    board.size = board.stored_size = load_.Int(0);
    board.complete = board.stored_complete = load_.Int(1) != 0;
  }
  load_.Reset();
  return &boards_.emplace(experiment, board).first->second;
}

core::Status Leaderboard::Flush() {
  for (auto& [experiment, board] : boards_) {
    if (board.size == board.stored_size &&
        board.complete == board.stored_complete) {
      continue;
    }
    TUNER_RETURN_IF_ERROR(store_.Bind(1, experiment)
                              .Bind(2, board.size)
                              .Bind(3, static_cast<int64_t>(board.complete))
                              .Run());
    board.stored_size = board.size;
    board.stored_complete = board.complete;
  }
  return core::Status::Ok();
}

core::Result<std::optional<Rank>> Leaderboard::Worst(ExperimentId experiment,
                                                     core::TrialId except) {
  auto row = worst_.Bind(1, experiment).Bind(2, except).Step();
  if (!row.ok()) return row.error();
  std::optional<Rank> worst;
  if (row.value()) {
    worst = Rank{worst_.Double(0), worst_.OptionalDouble(1), worst_.Int(2)};
  }
  worst_.Reset();
  return worst;
}

void Leaderboard::Move(Board& board, core::TrialId trial, bool on_board) {
  board.size += on_board ? 1 : -1;
  placement_->moves.emplace_back(trial, on_board);
}

void Leaderboard::SetComplete(Board& board, bool complete) {
  board.complete = complete;
}

// A trial on the board: it stays while it ranks before every other trial
// on it (those rank before every trial off it), or while the board is
// complete.
core::Status Leaderboard::KeepOn(ExperimentId experiment, Board& board,
                                 const Rank& rank) {
  board.worst_known = false;  // it may have become, or ceased to be, it
  if (board.complete) return core::Status::Ok();
  auto others = Worst(experiment, rank.id);
  if (!others.ok()) return others.status();
  if (others.value() && RanksBefore(rank, *others.value())) {
    return core::Status::Ok();
  }
  Move(board, rank.id, false);
  return core::Status::Ok();
}

// A trial off the board: it goes on when it ranks before the board's worst
// (who leaves a board grown past `high`), or when the board is complete and
// has room; else the board is no longer complete.
core::Status Leaderboard::TryOn(ExperimentId experiment, Board& board,
                                const Rank& rank) {
  if (board.complete && board.size < limits_.high) {
    if (board.worst_known &&
        (!board.worst || RanksBefore(*board.worst, rank))) {
      board.worst = rank;  // it is the new worst
    } else {
      board.worst_known = false;
    }
    Move(board, rank.id, true);
    return core::Status::Ok();
  }
  if (!board.worst_known) {
    auto worst = Worst(experiment, 0);
    if (!worst.ok()) return worst.status();
    board.worst = worst.value();
    board.worst_known = true;
  }
  if (!board.worst || !RanksBefore(rank, *board.worst)) {
    SetComplete(board, false);
    return core::Status::Ok();
  }
  Move(board, rank.id, true);
  board.worst_known = false;
  if (board.size <= limits_.high) return core::Status::Ok();
  SetComplete(board, false);
  Move(board, board.worst->id, false);
  return core::Status::Ok();
}

// Puts the best trials off the board on it, up to `target`: they rank
// after every trial on it, by the invariant. Fewer than asked for: every
// trial with a value is on it.
core::Status Leaderboard::Fill(ExperimentId experiment, Board& board) {
  int64_t wanted = limits_.target - board.size;
  TUNER_RETURN_IF_ERROR(fill_.Bind(1, experiment).Bind(2, wanted).Run());
  int64_t added = db_->Changes();
  placed_(0, true);
  board.size += added;
  board.worst_known = false;
  SetComplete(board, added < wanted);
  return core::Status::Ok();
}

}  // namespace tuner::storage
