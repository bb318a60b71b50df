// The query behind TrialStore::BestTrials, in the open so that a test can
// check that SQLite answers the default rule from an index of schema
// migration 8 (one per mode) rather than by scanning the experiment's
// trials.
#ifndef TUNER_STORAGE_BEST_ORDER_H_
#define TUNER_STORAGE_BEST_ORDER_H_

#include <string>

#include "core/trial.h"

namespace tuner::storage {

// How `tuner best` ranks trials (see TrialStore::BestTrials).
enum class BestBy { kLast, kBest };

// "WHERE ... ORDER BY ... LIMIT ?2" after "SELECT <columns> FROM trials":
// ?1 binds the experiment's id, ?2 the limit. For kLast the ORDER BY is
// exactly the key of an index (trials_best_last_{max,min}), so the first
// rows come without a sort; kBest reads the experiment's trials with a
// value and keeps the best `limit` (no index: see schema.cc, migration 8).
std::string BestTrialsWhereOrder(core::Mode mode, BestBy by);

}  // namespace tuner::storage

#endif  // TUNER_STORAGE_BEST_ORDER_H_
