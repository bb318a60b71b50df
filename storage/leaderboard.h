// Leaderboard: the indexed prefix of an experiment's ranking by the last
// value (BestBy::kLast), kept by the one writer in its own transactions.
//
// Indexing every trial's rank made each report's update an insert at a
// random place in that index, so each commit wrote most of its pages
// again. Only the board is indexed (trials.contender = 1, index
// trials_board), and the writer keeps this invariant, per experiment:
//
//   every trial on the board ranks better than every trial with a value
//   that is not on it,
//
// so the board's first N rows are the experiment's best N whenever the
// board holds N trials (experiments.board_size) or every trial with a value
// (experiments.board_complete). A reader that needs more scans
// (TrialStore::BestTrials).
#ifndef TUNER_STORAGE_LEADERBOARD_H_
#define TUNER_STORAGE_LEADERBOARD_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/result.h"
#include "storage/records.h"
#include "storage/sqlite.h"

namespace tuner::storage {

// Where a trial with a value ranks: the ORDER BY of BestTrialsWhereOrder
// for BestBy::kLast on last_key, as a value. `key` is last_value signed
// so that lower is better in either mode; a NULL time is nullopt.
struct Rank {
  double key = 0;
  std::optional<double> time;
  core::TrialId id = 0;
};

// Whether `a` ranks before `b` in the order SQLite sorts them: a finite
// key first, then a finite time, then an infinite one, then none; then
// the larger time; then the lower key; then the lower id.
bool RanksBefore(const Rank& a, const Rank& b);

// How many trials the board holds: it is filled up to `target` from the
// trials off it when it falls below `low` (a scan of the experiment's
// trials with a value, so rare), and its worst leaves above `high`.
struct BoardLimits {
  int64_t low = 64;
  int64_t target = 128;  // schema migration 13 filled boards to 128
  int64_t high = 256;
};

// The writer's side. What it reads of a board it keeps across its own
// transactions: the owner calls Discard() when a transaction is rolled back
// or another connection may have written. Not thread-safe.
class Leaderboard {
 public:
  // Told of each contender flag the board sets: (trial, on board), or
  // (0, true) when a refill may have put any trial of the experiment on.
  using Placed = std::function<void(core::TrialId trial, bool on_board)>;

  static core::Result<Leaderboard> Prepare(Database& db, BoardLimits limits,
                                           Placed placed);

  // `rank`, of a trial of `experiment`, is its rank as the write of its
  // row about to run will leave it; `on_board` its contender flag now.
  // Decides whether it goes on or off the board (and which trial leaves a
  // board grown too large), as the invariant needs: returns the flag that
  // write must set (nullopt: it keeps its own). Then, once the row is
  // written, Settle(); if the write failed, Abandon().
  core::Result<std::optional<bool>> Place(ExperimentId experiment,
                                          const Rank& rank, bool on_board);
  // Writes the flags of the other trials Place() moved, and refills the
  // board from the trials off it if it fell below `low` (reading every
  // row as written).
  core::Status Settle();
  // Forgets what Place() decided: the board is as it was before.
  void Abandon();
  // Writes the boards' sizes and completeness that differ from their rows;
  // must run in
  // their transaction (before a read of them, and before it commits).
  core::Status Flush();
  // A transaction was rolled back, or another connection may have
  // written: what was read may be stale.
  void Discard() {
    boards_.clear();
    placement_.reset();
  }
  // The experiment's rows are gone.
  void Drop(ExperimentId experiment) { boards_.erase(experiment); }

 private:
  // An experiment's board as this transaction knows it.
  struct Board {
    int64_t size = 0;
    bool complete = true;
    // What the experiment's row holds (as read, or as Flush() wrote):
    // Flush() writes only a board that differs from it.
    int64_t stored_size = 0;
    bool stored_complete = true;
    std::optional<Rank> worst;  // when worst_known; nullopt: empty
    bool worst_known = false;
  };
  Leaderboard(Database& db, BoardLimits limits, Placed placed, Statement load,
              Statement worst, Statement set_on_board, Statement store,
              Statement fill);
  core::Result<Board*> Load(ExperimentId experiment);
  // The worst trial on the board other than `except` (0: none excepted).
  core::Result<std::optional<Rank>> Worst(ExperimentId experiment,
                                          core::TrialId except);
  // Puts `trial` on or off `board` (its flag written by Settle()).
  void Move(Board& board, core::TrialId trial, bool on_board);
  void SetComplete(Board& board, bool complete);
  core::Status KeepOn(ExperimentId experiment, Board& board, const Rank& rank);
  core::Status TryOn(ExperimentId experiment, Board& board, const Rank& rank);
  core::Status Fill(ExperimentId experiment, Board& board);

  Database* db_;
  BoardLimits limits_;
  Placed placed_;
  Statement load_, worst_, set_on_board_, store_, fill_;
  std::unordered_map<ExperimentId, Board> boards_;
  // What the last Place() decided, until Settle() or Abandon(): the
  // trial placed, its board as it was, and the flags it changed.
  struct Placement {
    ExperimentId experiment = 0;
    core::TrialId trial = 0;
    Board before;
    std::vector<std::pair<core::TrialId, bool>> moves;
  };
  std::optional<Placement> placement_;
};

}  // namespace tuner::storage

#endif  // TUNER_STORAGE_LEADERBOARD_H_
