// TrialTable: the trials table and its params (a trial's status, attempts,
// end, last and best values, shim, retries), with what the writer keeps of
// it between statements: the counts per status and the leaderboard.
#ifndef TUNER_STORAGE_TRIAL_TABLE_H_
#define TUNER_STORAGE_TRIAL_TABLE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/result.h"
#include "storage/best_order.h"
#include "storage/leaderboard.h"
#include "storage/records.h"
#include "storage/row_batch.h"
#include "storage/sqlite.h"
#include "storage/trial_counts.h"
#include "storage/write_batch.h"

namespace tuner::storage {

// Part of a TrialStore (TrialStore::trials()): its writes join the store's
// batch, and its reads see them. Not thread-safe, as the store.
class TrialTable {
 public:
  // `db` and `batch` outlive the table; Prepare() before any other call.
  TrialTable(Database& db, WriteBatch& batch);
  ~TrialTable();
  // Prepares its statements: a reader's (`read_only`) only those it reads
  // with, for the columns the schema has (a database of an older schema
  // opened read-only may lack later ones). `board`: the size of the
  // leaderboards a writer keeps (storage/leaderboard.h).
  core::Status Prepare(bool read_only, BoardLimits board);

  // --- writes
  // Adds a pending trial with its params; returns its id (the one SQLite
  // would choose: one past the largest). Its row is written with the
  // batch's next statement on the trials or on a table that references
  // them (WriteAdded), so a trial launched as it is added is inserted
  // running: what makes the row fail (an experiment that is not there, an
  // index taken) fails that statement, or the commit.
  core::Result<core::TrialId> Add(ExperimentId experiment, int64_t index,
                                  const core::Params& params);
  // Marks a trial running and counts one more attempt; the previous
  // attempt's exit code and reason are cleared.
  core::Status MarkRunning(core::TrialId trial);
  core::Status Finish(core::TrialId trial, const TrialEnd& end);
  // The trial's newest report with a time and a finite objective: its
  // last value, and its best if better in `mode`. Written to its row once
  // per batch (at the flush), or by Finish().
  void NoteLastValue(core::TrialId trial, double time, double value,
                     core::Mode mode);
  // Records (or clears, with nullopt) the shim that runs a trial.
  core::Status SetShim(core::TrialId trial, std::optional<int64_t> pid,
                       std::optional<int64_t> start);
  // Records how many failed attempts of a trial were retried, and how many
  // were relaunched because their device was busy.
  core::Status SetRetries(core::TrialId trial, const RetryCounts& counts);

  // --- reads
  core::Result<std::vector<TrialRecord>> List(ExperimentId experiment);
  // One trial, with its params; nullopt when no trial has that id.
  core::Result<std::optional<TrialRecord>> Find(core::TrialId trial);
  // How many of the experiment's trials are in each status: read from the
  // counts the writer keeps (no scan), or counted on a database not
  // migrated to them yet (opened read-only).
  core::Result<std::map<core::TrialStatus, int64_t>> Count(
      ExperimentId experiment);
  // kLast: trials with a value, those that trained longest (largest
  // last_time) first, then by last_value in the experiment's mode; a
  // non-finite last_value (stored by an older version) or last_time ranks
  // after every finite one.
  // kBest: trials with a best value, by it in the experiment's mode (the
  // best any report reached, at any time). Ties: lower id first. At most
  // `limit`. kLast is an index lookup, not a scan, on a migrated database.
  core::Result<std::vector<TrialRecord>> Best(
      const ExperimentRecord& experiment, int64_t limit,
      BestBy by = BestBy::kLast);
  // What SetRetries() recorded (zeros if nothing).
  core::Result<RetryCounts> Retries(core::TrialId trial);

  // --- streaming reads: memory does not grow with the number of rows;
  // each row is handed to `visit` as it is read, and the first error
  // `visit` returns stops the read and is returned.
  // The experiment's trials with their params, in suggestion order
  // (trial_index).
  core::Status ForEach(
      ExperimentId experiment,
      const std::function<core::Status(const TrialRecord&)>& visit);
  // Best(), a trial at a time.
  core::Status ForEachBest(
      const ExperimentRecord& experiment, int64_t limit, BestBy by,
      const std::function<core::Status(const TrialRecord&)>& visit);
  // The names of the experiment's params, in the order they first appear.
  core::Result<std::vector<std::string>> ParamNames(ExperimentId experiment);

  // --- the store's side (TrialStore, and the tables that reference trials)
  // The trials table has exited_at (schema 10).
  bool exit_times() const { return exit_times_; }
  // Writes the rows of the trials Add() gathered; before any statement
  // that reads or writes them, or inserts a row that references them.
  core::Status WriteAdded();
  // Writes what the batch gathered: trials, params, last values, the
  // boards.
  core::Status Flush();
  // Writes the counts per status (before the batch commits).
  core::Status FlushCounts();
  // Forgets what was gathered and what is known of rows (a batch lost, or
  // another connection wrote).
  void Forget();
  // How many trials' rows it knows (WriteBatch bounds it).
  size_t KnownTrials() const;
  // The experiment's rows are deleted (in this batch): forgets its board
  // and counts.
  core::Status Dropped(ExperimentId experiment);

 private:
  struct Statements;
  // Where a trial ranks as this store's writes left its row (read once,
  // then kept as the writes change it, while it is known: WriteBatch).
  struct RankState {
    ExperimentId experiment = 0;
    bool on_board = false;
    std::optional<double> time;  // last_time
    std::optional<double> key;   // last_key
  };
  // The newest time and value of a trial, and its best value, since the
  // last flush; written to its row by FlushLastValues().
  struct PendingLast {
    double time = 0;
    double value = 0;
    std::optional<double> best;
    core::Mode mode = core::Mode::kMax;
  };

  // A trial Add() gathered, as its row will be written.
  struct AddedTrial {
    core::TrialId id = 0;
    ExperimentId experiment = 0;
    int64_t index = 0;
    double created_at = 0;
    int64_t attempts = 0;              // MarkRunning() calls
    std::optional<double> started_at;  // the last one's time
  };

  core::Status PrepareWriter(BoardLimits board);
  // The id Add() gives next: one past the largest in the table, or in the
  // batch.
  core::Result<core::TrialId> NextId();
  AddedTrial* FindAdded(core::TrialId trial);
  // Runs `update` (bound) on `trial`'s row, which sets its status to
  // `status`, and counts the move.
  core::Status ChangeTrial(core::TrialId trial, const std::string& status,
                           Statement& update);
  core::Status FlushLastValues();
  core::Result<RankState*> RankOf(core::TrialId trial);
  // Where `trial` goes on the leaderboard once its row is written with
  // `time` (which replaces the row's, or with `replaces_time` false, is
  // COALESCEd with it) and `value` (nullopt: the row keeps its own),
  // decided before the write: the contender flag the write sets (nullopt:
  // it keeps its own; BindContender). AfterPlaced() with the write's
  // status.
  core::Result<std::optional<bool>> PlaceOnBoard(core::TrialId trial,
                                                 bool replaces_time,
                                                 std::optional<double> time,
                                                 std::optional<double> value,
                                                 core::Mode mode);
  // The write PlaceOnBoard() ranked is done (`written`): the board settles,
  // or forgets the placement if the write failed. Returns `written`, else
  // the board's error.
  core::Status AfterPlaced(core::TrialId trial, const core::Status& written);
  // Binds `contender` (NULL: unchanged) as parameter `index` of a write of
  // a trial's row, where the trials table has the flag.
  void BindContender(Statement& stmt, int index, std::optional<bool> contender);

  core::Result<core::Params> LoadParams(core::TrialId trial);
  core::Result<std::vector<TrialRecord>> QueryTrials(Statement& stmt);
  // Steps `stmt` (which selected TrialColumns()), handing each trial with
  // its params to `visit`.
  core::Status VisitTrials(
      Statement& stmt,
      const std::function<core::Status(const TrialRecord&)>& visit);
  // The query of Best, bound.
  // REQUIRES: a read transaction for the statement's life (the board's
  // size and its rows are read in one snapshot).
  core::Result<Statement> PrepareBest(const ExperimentRecord& experiment,
                                      int64_t limit, BestBy by);
  // Whether the leaderboard's first `limit` trials are the experiment's
  // best by the last value.
  core::Result<bool> BoardHolds(ExperimentId experiment, int64_t limit);
  // Whether the database has migration 8's trial_counts (a database opened
  // read-only may predate it). Asked once.
  core::Result<bool> HasTrialCounts();

  Database& db_;
  WriteBatch& batch_;
  std::unique_ptr<Statements> statements_;
  std::optional<TrialCounts> counts_;   // the writer's; none read-only
  std::optional<Leaderboard> board_;    // likewise
  std::optional<RowBatch> params_;      // likewise
  std::optional<RowBatch> trial_rows_;  // likewise: WriteAdded's inserts
  std::vector<AddedTrial> added_;       // not written yet, by id
  // NextId(), while the batch keeps what it knows (WriteBatch).
  std::optional<core::TrialId> next_id_;
  std::unordered_map<core::TrialId, RankState> ranks_;  // see RankOf
  std::unordered_map<core::TrialId, PendingLast> pending_last_;
  std::optional<bool> has_trial_counts_;  // see HasTrialCounts
  // The trials table has exited_at (schema 10), last_key (schema 12),
  // contender (schema 13: the leaderboard): always once migrated; a
  // database opened read-only may predate them.
  bool exit_times_ = true;
  bool last_keys_ = true;
  bool boards_ = true;
};

}  // namespace tuner::storage

#endif  // TUNER_STORAGE_TRIAL_TABLE_H_
