// TrialStore: the tuner's database, its tables (experiments, trials,
// reports, leases) over one connection and one write batch.
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
#include "storage/report_table.h"
#include "storage/sqlite.h"
#include "storage/trial_table.h"
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

  // --- trials and their params, counts and leaderboard
  TrialTable& trials() { return trials_; }
  // --- reports and decisions
  ReportTable& reports() { return reports_; }

  // --- the file
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
  TrialStore(std::unique_ptr<Database> db, bool read_only);
  core::Status Prepare(BoardLimits board);
  // What the batch drives (WriteBatch::Memory): FlushGathered writes every
  // row and value the tables gathered in memory; ForgetRows forgets them
  // and what the tables know of rows.
  WriteBatch::Memory BatchMemory();
  core::Status FlushGathered();
  void ForgetRows();

  std::unique_ptr<Database> db_;
  WriteBatch batch_;  // over db_
  ExperimentTable experiments_;
  LeaseTable leases_;
  TrialTable trials_;
  ReportTable reports_;
  bool read_only_;
};

}  // namespace tuner::storage

#endif  // TUNER_STORAGE_TRIAL_STORE_H_
