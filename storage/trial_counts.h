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

// Status changes are gathered in memory and written by Flush() (a few rows
// per transaction, not one per change), which the writer calls before it
// commits and before it reads the counts itself: another connection sees
// the counts and the rows change in the same commit. Discard() forgets
// changes whose transaction SQLite rolled back. Not thread-safe.
class TrialCounts {
 public:
  // Prepares its statements on `db` (whose schema has trial_counts).
  static core::Result<TrialCounts> Prepare(Database& db);

  // The experiment and status of a trial's row.
  using TrialState = std::pair<ExperimentId, std::string>;

  // `trial` of `experiment` moves from `from` (nullopt: a new trial) to
  // `to`.
  void Move(core::TrialId trial, ExperimentId experiment,
            const std::optional<std::string>& from, const std::string& to);
  // The state a Move() of this transaction left `trial` in; nullopt if it
  // did not move since the transaction began. Exact, as the writer holds
  // the write lock until the transaction ends, so the caller need not read
  // the row again.
  std::optional<TrialState> Moved(core::TrialId trial) const;
  // Writes the gathered changes; must run in the changes' transaction.
  core::Status Flush();
  // The transaction ended (committed or rolled back): forgets its changes
  // and the states of Moved().
  void Discard();
  // The experiment's counts are gone (its rows deleted).
  core::Status Drop(ExperimentId experiment);

 private:
  TrialCounts(Statement add, Statement drop)
      : add_(std::move(add)), drop_(std::move(drop)) {}

  Statement add_, drop_;
  std::map<std::pair<ExperimentId, std::string>, int64_t> changes_;
  std::unordered_map<core::TrialId, TrialState> moved_;
};

}  // namespace tuner::storage

#endif  // TUNER_STORAGE_TRIAL_COUNTS_H_
