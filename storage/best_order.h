// The query behind TrialStore::BestTrials, in the open so that a test can
// check that SQLite answers the default rule from an index (schema
// migration 12) rather than by scanning the experiment's trials.
#ifndef TUNER_STORAGE_BEST_ORDER_H_
#define TUNER_STORAGE_BEST_ORDER_H_

#include <string>

#include "core/trial.h"

namespace tuner::storage {

// How `tuner best` ranks trials (see TrialStore::BestTrials).
enum class BestBy { kLast, kBest };

// Which column orders kLast: last_key (schema 12: last_value signed so
// that ascending is best first in either mode) among the trials on the
// leaderboard (schema 13: storage/leaderboard.h) or among all, or, in a
// database of an older schema opened read-only, last_value itself.
enum class LastOrderColumn { kBoard, kLastKey, kLastValue };

// "WHERE ... ORDER BY ... LIMIT ?2" after "SELECT <columns> FROM trials":
// ?1 binds the experiment's id, ?2 the limit. For kLast on the board the
// WHERE and ORDER BY are exactly those of the index trials_board, so the
// first rows come without a sort; off it, and for kBest, SQLite reads the
// experiment's trials with a value and keeps the best `limit` (no index:
// see schema.cc, migrations 8 and 13).
std::string BestTrialsWhereOrder(
    core::Mode mode, BestBy by,
    LastOrderColumn column = LastOrderColumn::kBoard);

}  // namespace tuner::storage

#endif  // TUNER_STORAGE_BEST_ORDER_H_
