// RankedRung: the values recorded at one rung, ranked in O(log n).
#ifndef TUNER_SCHEDULERS_RANKED_RUNG_H_
#define TUNER_SCHEDULERS_RANKED_RUNG_H_

#include <cstdint>
#include <ext/pb_ds/assoc_container.hpp>
#include <ext/pb_ds/tree_policy.hpp>
#include <map>
#include <optional>
#include <unordered_map>
#include <utility>

#include "tuner/core/trial.h"

namespace tuner::schedulers {

// Values are "internal": lower is better, non-finite already mapped to +inf
// (see Internal()). Every operation is O(log n). For promotion-type
// schedulers a rung also keeps its candidates: paused trials recorded here
// and not promoted yet, best first.
class RankedRung {
 public:
  // (internal value, insertion sequence): ties keep their recording order.
  using Key = std::pair<double, int64_t>;

  // Records a value; returns its key.
  Key Insert(double internal);
  // 1 + the number of values strictly better than `internal`.
  int64_t RankOf(double internal) const;
  int64_t size() const { return static_cast<int64_t>(values_.size()); }
  // The value of rank `order` (0 = best). REQUIRES: order < size().
  double ValueAt(int64_t order) const;

  void AddCandidate(core::TrialId trial, Key key);
  void RemoveCandidate(core::TrialId trial);
  // The best candidate, if any.
  std::optional<std::pair<core::TrialId, Key>> BestCandidate() const;

 private:
  using Tree = __gnu_pbds::tree<Key, __gnu_pbds::null_type, std::less<Key>,
                                __gnu_pbds::rb_tree_tag,
                                __gnu_pbds::tree_order_statistics_node_update>;
  Tree values_;
  int64_t sequence_ = 0;
  std::map<Key, core::TrialId> candidates_;
  std::unordered_map<core::TrialId, Key> candidate_keys_;
};

// `value` as a RankedRung stores it for `mode`: sign-flipped for kMax so
// that lower is better; NaN and ±inf become +inf, the worst.
double Internal(double value, core::Mode mode);

// floor(n / rf), computed so that exact multiples are not lost to rounding.
int64_t TopCount(int64_t n, double reduction_factor);

}  // namespace tuner::schedulers

#endif  // TUNER_SCHEDULERS_RANKED_RUNG_H_
