// WriteBatch: the transactions of one writer's connection, and what the
// writer may keep in memory between them.
#ifndef TUNER_STORAGE_WRITE_BATCH_H_
#define TUNER_STORAGE_WRITE_BATCH_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>

#include "core/result.h"
#include "storage/sqlite.h"

namespace tuner::storage {

// The first write after a Commit() opens a batch (BEGIN IMMEDIATE: the
// file's write lock) and Commit() ends it. A writer gathers rows in memory
// during a batch (written by Flush(), before a read and before the commit)
// and keeps what it read of its rows across batches while no other
// connection committed (SQLite's data version says so), up to
// kMaxKnownTrials trials: each Begin() checks.
//
// Batch phases:
//   kNone ─Begin─▶ kOpen ─Commit─▶ kNone
//   kOpen ─(SQLite rolled the transaction back: a full disk)─▶ seen at
//   the next Begin or Commit as kLost ─Commit (fails)─▶ kNone
// With HoldCommits(n), Commit() ends the batch but keeps the transaction
// (and the lock) open for n - 1 batches out of n.
// Not thread-safe: one thread owns the writer.
class WriteBatch {
 public:
  // What the writer keeps in memory, as the batch drives it.
  struct Memory {
    // Writes what was gathered (rows, values): before a read and before a
    // commit, in the batch's transaction.
    std::function<core::Status()> flush;
    // Writes what is kept until the commit (counts): after flush.
    std::function<core::Status()> before_commit;
    // Forgets what was gathered and what is known of rows: a rollback, or
    // another connection committed.
    std::function<void()> forget;
    // How many trials' rows it knows now.
    std::function<size_t()> known_trials;
  };
  static constexpr size_t kMaxKnownTrials = 4096;

  enum class Phase { kNone, kOpen, kLost };

  // `db` outlives the batch. A batch over a read-only connection refuses
  // to begin.
  WriteBatch(Database& db, Memory memory, bool read_only = false);

  // Opens a batch unless one is open (kIoError when the write lock cannot
  // be had within the busy policy; kInvalidArgument when read-only).
  core::Status Begin();
  // Makes the batch durable (flush, before_commit, COMMIT) and gives the
  // lock back; on any failure rolls it back. kNone after it, whatever it
  // returns.
  core::Status Commit();
  // Writes what was gathered, when a transaction is open (before a read);
  // a transaction SQLite ended by itself forgets it.
  core::Status Flush();
  // True between a write and the Commit() that ends its batch.
  bool InTransaction() const;
  // Group commit (TrialStore::HoldCommits).
  void HoldCommits(int every);
  core::Status FlushHeld();
  Phase phase() const { return phase_; }

 private:
  void Forget();
  // A commit succeeded: what is known stays known until another
  // connection commits (or past kMaxKnownTrials: forgotten).
  void KeepKnown();

  Database& db_;
  Memory memory_;
  bool read_only_;
  Phase phase_ = Phase::kNone;
  // The database's DataVersion() after the last commit, while what the
  // writer knew in that transaction is kept; none: forgotten.
  std::optional<uint32_t> known_version_;
  int commit_every_ = 1;  // see HoldCommits
  int batches_held_ = 0;  // ended batches not yet committed
};

}  // namespace tuner::storage

#endif  // TUNER_STORAGE_WRITE_BATCH_H_
