// Brackets of the HyperBand family: rungs per bracket and trial shares.
#ifndef TUNER_SCHEDULERS_BRACKETS_H_
#define TUNER_SCHEDULERS_BRACKETS_H_

#include <cstdint>
#include <vector>

#include "core/scheduler_spec.h"

namespace tuner::schedulers {

// One bracket: successive halving that starts at a higher first rung.
struct Bracket {
  std::vector<double> milestones;  // its rungs, lowest first (below max_t)
  // HyperBand's trial count for this bracket (Li et al. 2017): with s
  // halvings and s_max + 1 resource levels, ceil((s_max + 1) / (s + 1) *
  // rf^s). Brackets get trials in proportion to it, so each spends about
  // the same budget.
  int64_t trials = 0;
};

// At most this many rungs per bracket, and brackets (the config refuses
// more; BaseMilestones stops there whatever the spec says).
inline constexpr int kMaxRungs = 64;
// A bracket's HyperBand trial count saturates here, so that it and the sum
// over the brackets stay exact in an int64_t.
inline constexpr int64_t kMaxBracketTrials = int64_t{1} << 50;

// True iff `time` has reached `milestone`, allowing for float rounding.
bool Reached(double time, double milestone);

// True iff `time` is within the rounding of a reported time (a Trainer's
// epoch printed as 2.99, 0.9996 or 2.0004) of `mark`, a rung or max_t:
// 0.01 either side, 1% of a mark below one unit, the bound itself included
// with Reached's float slack (26.99 is within 0.01 of 27).
bool NearMark(double time, double mark);

// The rung milestones of bracket 0: grace_period * rf^k below max_t, at
// most kMaxRungs of them.
// REQUIRES: spec.max_t is set, grace_period > 0, reduction_factor > 1.
std::vector<double> BaseMilestones(const core::SchedulerSpec& spec);

// Bracket b (0 <= b < spec.brackets) starts at grace_period * rf^b.
// `spec.brackets` is clamped to the number of resource levels.
std::vector<Bracket> PlanBrackets(const core::SchedulerSpec& spec);

// Synchronous HyperBand's brackets: `spec.brackets` of them, or all the
// resource levels allow when it is 0.
std::vector<Bracket> HyperbandBrackets(const core::SchedulerSpec& spec);

// The bracket of trial `index`: a seeded Weyl sequence (golden ratio)
// mapped through the brackets' cumulative shares. Deterministic, O(1), and
// over any n consecutive trials every bracket's count is within O(log n)
// of its share.
int BracketOf(const std::vector<Bracket>& brackets, uint64_t seed,
              int64_t index);

}  // namespace tuner::schedulers

#endif  // TUNER_SCHEDULERS_BRACKETS_H_
