// TrialStore: experiments, trials, params, reports and decisions in SQLite.
#ifndef TUNER_STORAGE_TRIAL_STORE_H_
#define TUNER_STORAGE_TRIAL_STORE_H_

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/result.h"
#include "storage/best_order.h"
#include "storage/change_feed.h"
#include "storage/experiment_table.h"
#include "storage/leaderboard.h"
#include "storage/lease_table.h"
#include "storage/records.h"
#include "storage/row_batch.h"
#include "storage/sqlite.h"
#include "storage/trial_counts.h"
#include "storage/write_batch.h"

namespace tuner::storage {

// The database of one or more experiments. WAL mode: readers never block
// the writer nor each other. Any number of processes may write to one file
// (several `tuner run`, a `tuner serve`); SQLite lets one of them write at
// a time, so each holds the write lock only briefly.
//
// Writes are batched: the first write after a Commit() opens a transaction
// (BEGIN IMMEDIATE: it takes the file's write lock) and Commit() ends it.
// Nothing is durable until Commit() returns OK, so a caller commits before
// it acts on what it wrote (launching or stopping a trial, printing an
// answer). Reads on this store see its uncommitted writes.
//
// While a batch is open every other writer of the file waits, so the
// caller commits before anything slow or any wait: before it spawns a
// process, detects devices, sleeps, or returns to an event loop without a
// commit posted. A batch is one burst of work (InTransaction() tells).
//
// Busy file (BusyPolicy in sqlite.h): taking the lock and COMMIT are
// retried with a bounded backoff; after BusyPolicy::total (30 s) the write
// fails with "database is locked". A write that fails undoes only itself
// and the batch stays open (SQLite may end it on errors such as a full
// disk: the next Commit() then says the batch was lost). A Commit() that
// fails rolls the batch back: after Commit() returns, whatever it returns,
// the store holds no lock.
// Not thread-safe: one thread owns a store.
class TrialStore {
 public:
  // Opens or creates the database at `path` (":memory:" for a private
  // in-memory one) and migrates its schema. `board`: the size of the
  // leaderboards this writer keeps (storage/leaderboard.h).
  static core::Result<std::unique_ptr<TrialStore>> Open(const std::string& path,
                                                        BoardLimits board = {});
  // Opens an existing database for reading only. Fails if it does not exist.
  static core::Result<std::unique_ptr<TrialStore>> OpenReadOnly(
      const std::string& path);
  ~TrialStore();

  // Makes every write since the last Commit() durable and gives the write
  // lock back. On failure the writes since the last Commit() are undone.
  core::Status Commit();
  // True between a write and the Commit() that ends its batch.
  bool InTransaction() const;
  // How long a write waits for other writers (default: BusyPolicy{}).
  void SetBusyPolicy(const BusyPolicy& policy);
  // The time (Unix seconds) written as created_at, started_at, ended_at,
  // acquired_at...; empty: the system clock. A simulation's time.
  void SetTimeSource(std::function<double()> now);
  // Group commit for a writer whose work can be redone (a simulation):
  // Commit() then really commits only every `every`-th batch and otherwise
  // keeps the transaction (and the write lock) open, ending the batch for
  // InTransaction(). A crash loses at most `every` batches. 1, the default:
  // every Commit() commits. FlushHeld() commits what is held.
  void HoldCommits(int every);
  core::Status FlushHeld();

  // --- experiments: name, status, budget, Slurm allocation, doomed paths
  ExperimentTable& experiments() { return experiments_; }

  // --- trials
  // Adds a pending trial with its params; returns its id.
  core::Result<core::TrialId> AddTrial(ExperimentId experiment, int64_t index,
                                       const core::Params& params);
  // Marks a trial running and counts one more attempt; the previous
  // attempt's exit code and reason are cleared.
  core::Status MarkRunning(core::TrialId trial);
  core::Status FinishTrial(core::TrialId trial, const TrialEnd& end);
  core::Result<std::vector<TrialRecord>> ListTrials(ExperimentId experiment);
  // One trial, with its params; nullopt when no trial has that id.
  core::Result<std::optional<TrialRecord>> FindTrial(core::TrialId trial);
  // How many of the experiment's trials are in each status: read from the
  // counts the triggers of schema migration 8 keep (no scan), or counted on
  // a database not migrated yet (opened read-only).
  core::Result<std::map<core::TrialStatus, int64_t>> CountTrials(
      ExperimentId experiment);
  // kLast: trials with a value, those that trained longest (largest
  // last_time) first, then by last_value in the experiment's mode; a
  // non-finite last_value (stored by an older version) or last_time ranks
  // after every finite one.
  // kBest: trials with a best value, by it in the experiment's mode (the
  // best any report reached, at any time). Ties: lower id first. At most
  // `limit`. kLast is an index lookup, not a scan, on a migrated database.
  core::Result<std::vector<TrialRecord>> BestTrials(
      const ExperimentRecord& experiment, int64_t limit,
      BestBy by = BestBy::kLast);

  // --- reports and decisions
  // Appends an accepted report, its objective as reported, and updates the
  // trial's last/best values when the report carries both the time and a
  // finite objective: a NaN or ±inf objective is never a trial's value, so
  // every view of the trial (trials, best, status, the API) shows and ranks
  // its last and best finite ones, or none.
  core::Status AppendReport(const ReportRecord& report, core::Mode mode);
  core::Status AppendDecision(const DecisionRecord& record);
  // With `after_seq` and `limit` (>= 0): only the first `limit` reports
  // whose seq is above `after_seq` (one page).
  core::Result<std::vector<ReportRecord>> ListReports(core::TrialId trial,
                                                      int64_t after_seq = -1,
                                                      int64_t limit = -1);
  // Every report of the experiment's trials (time, objective, when), by
  // trial then sequence: the learning curves.
  core::Result<std::vector<CurvePoint>> ListCurves(ExperimentId experiment);

  // --- streaming reads (trial_store_stream.cc): memory does not grow with
  // the number of rows; each row is handed to `visit` as it is read, and
  // the first error `visit` returns stops the read and is returned.
  // The experiment's trials with their params, in suggestion order
  // (trial_index).
  core::Status ForEachTrial(
      ExperimentId experiment,
      const std::function<core::Status(const TrialRecord&)>& visit);
  // BestTrials(), a trial at a time.
  core::Status ForEachBest(
      const ExperimentRecord& experiment, int64_t limit, BestBy by,
      const std::function<core::Status(const TrialRecord&)>& visit);
  // Every report of the experiment's trials, by trial (in suggestion order)
  // then seq, with its metrics and created_at.
  core::Status ForEachReport(
      ExperimentId experiment,
      const std::function<core::Status(const ReportRecord&)>& visit);
  // The names of the experiment's params, in the order they first appear.
  core::Result<std::vector<std::string>> ParamNames(ExperimentId experiment);
  // The distinct metric names of the experiment's reports, in the order
  // they first appear; kInvalidArgument when there are more than `limit`.
  core::Result<std::vector<std::string>> MetricNames(ExperimentId experiment,
                                                     int64_t limit);
  core::Result<std::vector<DecisionRecord>> ListDecisions(
      ExperimentId experiment);

  // --- adoption by a restarted tuner (trial_store_leases.cc)
  // Records (or clears, with nullopt) the shim that runs a trial.
  core::Status SetShim(core::TrialId trial, std::optional<int64_t> pid,
                       std::optional<int64_t> start);
  // The stdout offset of the trial's last report in `attempt`, if any.
  core::Result<std::optional<int64_t>> LastOffset(core::TrialId trial,
                                                  int64_t attempt);
  // Records how many failed attempts of a trial were retried, and how many
  // were relaunched because their device was busy.
  core::Status SetRetries(core::TrialId trial, const RetryCounts& counts);
  // What SetRetries() recorded (zeros if nothing).
  core::Result<RetryCounts> Retries(core::TrialId trial);
  // Caps the database at `pages` pages (PRAGMA max_page_count): writes past
  // it fail as they would on a full disk. For tests and quotas.
  core::Status LimitPages(int64_t pages);
  // Frees the pages a writer's Open sets aside (16 of them, about 64 KB)
  // for the writes that record how its trials ended once the disk (or
  // LimitPages) is full; part of the batch. The next Open sets them aside
  // again.
  core::Status ReleaseReserve();
  // Runs `PRAGMA integrity_check`; "ok" when the file is sound.
  core::Result<std::string> IntegrityCheck();

  // --- device leases: which devices each attempt held, and when
  LeaseTable& leases() { return leases_; }

  // --- the dashboard's incremental reads (change_feed.h)
  // A reader of what changed after a time, over this store's connection
  // (its uncommitted writes written first). It lives as long as the store
  // and no longer, and only reads.
  core::Result<ChangeFeed> Changes();
  // --- deleting an experiment (trial_store_lifecycle.cc)
  // Deletes every row of the experiment (its trials' params, reports,
  // decisions and leases, its trials, itself) and records `paths` (its
  // files) as doomed for `name`, in a batch. The caller commits, then
  // removes the files and forgets each path.
  core::Status DeleteExperiment(ExperimentId experiment,
                                const std::string& name,
                                const std::vector<std::string>& paths);

 private:
  struct Statements;
  TrialStore(std::unique_ptr<Database> db, bool read_only);
  core::Status BeginIfNeeded();
  // Runs `update` (bound) on `trial`'s row, which sets its status to
  // `status`, and counts the move.
  core::Status ChangeTrial(core::TrialId trial, const std::string& status,
                           Statement& update);
  core::Status PrepareStatements();
  core::Result<core::Params> LoadParams(core::TrialId trial);
  core::Result<std::vector<TrialRecord>> QueryTrials(Statement& stmt);
  // The query of BestTrials, bound.
  // The largest seq of the experiment's reports (0 without any).
  // REQUIRES: a read transaction for the statement's life (the board's
  // size and its rows are read in one snapshot).
  core::Result<Statement> PrepareBest(const ExperimentRecord& experiment,
                                      int64_t limit, BestBy by);
  // Whether the leaderboard's first `limit` trials are the experiment's
  // best by the last value.
  core::Result<bool> BoardHolds(ExperimentId experiment, int64_t limit);
  // Where a trial ranks as this store's writes left its row (read once,
  // then kept as the writes change it, while it is known: WriteBatch).
  struct RankState {
    ExperimentId experiment = 0;
    bool on_board = false;
    std::optional<double> time;  // last_time
    std::optional<double> key;   // last_key
  };
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
  // Steps `stmt` (which selected TrialColumns()), handing each trial with
  // its params to `visit`.
  core::Status VisitTrials(
      Statement& stmt,
      const std::function<core::Status(const TrialRecord&)>& visit);
  // Runs `read` in one read transaction (one snapshot, and one check of
  // the files: see Database), unless a transaction is open already.
  core::Status InReadTransaction(const std::function<core::Status()>& read);
  // Whether the database has migration 8's trial_counts (a database opened
  // read-only may predate it). Asked once.
  core::Result<bool> HasTrialCounts();

  // The newest time and value of a trial, and its best value, since the
  // last flush; written to its row by FlushLastValues().
  struct PendingLast {
    double time = 0;
    double value = 0;
    std::optional<double> best;
    core::Mode mode = core::Mode::kMax;
  };
  core::Status FlushLastValues();
  // What the batch drives (WriteBatch::Memory): FlushGathered writes every
  // row and value gathered in memory (params, reports, decisions, last
  // values, the boards' sizes); ForgetRows forgets them and what is known
  // of rows (trial states, ranks, boards).
  WriteBatch::Memory BatchMemory();
  core::Status FlushGathered();
  void ForgetRows();

  std::unique_ptr<Database> db_;
  WriteBatch batch_;  // over db_
  ExperimentTable experiments_;
  LeaseTable leases_;
  std::unordered_map<core::TrialId, PendingLast> pending_last_;
  std::unique_ptr<Statements> statements_;
  bool read_only_;
  std::optional<bool> has_trial_counts_;  // see HasTrialCounts
  std::optional<TrialCounts> counts_;     // the writer's; none read-only
  std::optional<Leaderboard> board_;      // likewise
  std::unordered_map<core::TrialId, RankState> ranks_;    // see RankOf
  std::optional<RowBatch> params_, reports_, decisions_;  // likewise
  BoardLimits board_limits_;
  // The trials table has exited_at (schema 10): always once migrated; a
  // database opened read-only may predate it.
  bool exit_times_ = true;
  // The trials table has last_key (schema 12), likewise.
  bool last_keys_ = true;
  // The trials table has contender (schema 13: the leaderboard), likewise.
  bool boards_ = true;
};

}  // namespace tuner::storage

#endif  // TUNER_STORAGE_TRIAL_STORE_H_
