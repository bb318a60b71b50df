// RankedRung: the values recorded at one rung, ranked in O(log n).
#ifndef TUNER_SCHEDULERS_RANKED_RUNG_H_
#define TUNER_SCHEDULERS_RANKED_RUNG_H_

#include <cstdint>
#include <map>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/trial.h"

namespace tuner::schedulers {

// Values are "internal": lower is better, non-finite already mapped to +inf
// (see Internal()). An order-statistics structure built for the cache: the
// sorted values live in blocks of 128 to 512 keys, found by binary search
// over the blocks' first keys, with a Fenwick tree of block sizes for ranks.
// A rank or an insert touches a few cache lines, not ~2 log2(n) tree nodes:
// O(log n) comparisons plus an O(block) move. For promotion-type
// schedulers a rung also keeps its candidates: paused trials recorded here
// and not promoted yet, best first.
class RankedRung {
 public:
  // (internal value, insertion sequence): ties keep their recording order.
  using Key = std::pair<double, int64_t>;

  // Records a value; returns its key.
  Key Insert(double internal);
  // The number of recorded keys below `key`.
  int64_t CountBelow(const Key& key) const;
  // 1 + the number of values strictly better than `internal`.
  int64_t RankOf(double internal) const;
  int64_t size() const { return size_; }
  // The value of rank `order` (0 = best). REQUIRES: order < size().
  double ValueAt(int64_t order) const;

  void AddCandidate(core::TrialId trial, Key key);
  void RemoveCandidate(core::TrialId trial);
  // The best candidate, if any.
  std::optional<std::pair<core::TrialId, Key>> BestCandidate() const;

 private:
  static constexpr size_t kBlock = 256;
  void AddToBlockCount(size_t block, int64_t delta);
  int64_t CountBeforeBlock(size_t block) const;
  void SplitBlock(size_t block);

  std::vector<std::vector<Key>> blocks_;  // sorted; all keys of block i are
                                          // below the first of block i + 1
  std::vector<Key> firsts_;               // the first key of each block
  std::vector<int64_t> fenwick_;          // block sizes, 1-based
  int64_t size_ = 0;
  int64_t sequence_ = 0;
  std::map<Key, core::TrialId> candidates_;
  std::unordered_map<core::TrialId, Key> candidate_keys_;
};

// `value` as a RankedRung stores it for `mode`: sign-flipped for kMax so
// that lower is better; NaN and ±inf become +inf, the worst.
double Internal(double value, core::Mode mode);

// The inverse of Internal() for finite values: the objective as reported.
inline double External(double internal, core::Mode mode) {
  return mode == core::Mode::kMax ? -internal : internal;
}

// floor(n / rf), computed so that exact multiples are not lost to rounding.
int64_t TopCount(int64_t n, double reduction_factor);

}  // namespace tuner::schedulers

#endif  // TUNER_SCHEDULERS_RANKED_RUNG_H_
