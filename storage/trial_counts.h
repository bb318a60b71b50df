// TrialCounts: the per-experiment, per-status trial counts of the
// trial_counts table, kept by the one writer in its own transactions.
#ifndef TUNER_STORAGE_TRIAL_COUNTS_H_
#define TUNER_STORAGE_TRIAL_COUNTS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

#include "core/result.h"
#include "core/trial.h"
#include "storage/records.h"
#include "storage/sqlite.h"

namespace tuner::storage {

// The table holds a row per experiment and status but running, and one
// with the status kAll that counts every trial: the running trials are
// kAll's count less the others'. A trial launched as it is added, and a
// running trial that ends, each change one row.
//
// Status changes are gathered in memory and written by Flush() (one
// statement per transaction for all its changed rows, not one per change),
// which the writer calls before it commits and before it reads the counts
// itself: another connection sees the counts and the rows change in the same
// commit. Discard() forgets changes whose transaction SQLite rolled back. Not
// thread-safe.
class TrialCounts {
 public:
  // The status of the row that counts every trial of an experiment.
  static constexpr char kAll[] = "all";
  // The status whose count no row holds (kAll's less the others').
  static constexpr char kDerived[] = "running";

  // Prepares its statements on `db` (whose schema has trial_counts).
  static core::Result<TrialCounts> Prepare(Database& db);

  // The experiment and status of a trial's row.
  using TrialState = std::pair<ExperimentId, std::string>;

  // `trial` of `experiment` moves from `from` (nullopt: a new trial) to
  // `to`.
  void Move(core::TrialId trial, ExperimentId experiment,
            const std::optional<std::string>& from, const std::string& to);
  // The state the last Move() left `trial` in; nullopt if it did not move
  // since the last Discard(). Exact while no other connection writes the
  // trials (the owner calls Discard() when one may have, and when a
  // transaction is rolled back), so the caller need not read the row again.
  std::optional<TrialState> Moved(core::TrialId trial) const;
  // How many trials Moved() knows.
  size_t KnownTrials() const { return moved_.size(); }
  // Writes the gathered changes; must run in the changes' transaction.
  core::Status Flush();
  // The transaction was rolled back, or another connection may have
  // written: forgets the changes not written and the states of Moved().
  void Discard();
  // The experiment's counts are gone (its rows deleted).
  core::Status Drop(ExperimentId experiment);

 private:
  using Key = std::pair<ExperimentId, std::string>;
  // At most this many rows per upsert (a batch that touched many
  // experiments takes several).
  static constexpr size_t kRowsPerUpsert = 16;

  TrialCounts(Database& db, Statement drop)
      : db_(&db), drop_(std::move(drop)) {}
  // The upsert that adds `rows` (experiment, status, change) rows to the
  // counts, prepared on first use.
  core::Result<Statement*> AddOf(int rows);

  Database* db_;
  Statement drop_;
  std::map<int, Statement> adds_;
  std::map<Key, int64_t> changes_;
  std::unordered_map<core::TrialId, TrialState> moved_;
};

}  // namespace tuner::storage

#endif  // TUNER_STORAGE_TRIAL_COUNTS_H_
