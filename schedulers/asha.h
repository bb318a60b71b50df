// Asynchronous successive halving (ASHA), stopping type.
#ifndef TUNER_SCHEDULERS_ASHA_H_
#define TUNER_SCHEDULERS_ASHA_H_

#include <cstdint>
#include <ext/pb_ds/assoc_container.hpp>
#include <ext/pb_ds/tree_policy.hpp>
#include <unordered_map>
#include <utility>
#include <vector>

#include "schedulers/trial_scheduler.h"
#include "tuner/core/scheduler_spec.h"

namespace tuner::schedulers {

// The rule (docs/schedulers.md):
// - Rungs sit at grace_period * reduction_factor^k for every k with a
//   milestone below max_t.
// - When a report reaches a rung, its value is recorded there and the trial
//   continues iff its rank is within the top max(1, floor(n / rf)) of the n
//   values recorded at that rung, its own included. Rank 1 is best; only
//   strictly better values count against it, so ties continue.
// - A non-finite value stops the trial; it is recorded as the worst value.
// - A report that crosses several rungs is judged at each, lowest first, with
//   the same value. A rung a trial has passed is never filled in later.
// - A report at or past max_t that survives its rungs completes the trial.
// Each judgement costs O(log n): every rung is an order-statistics tree.
class AshaScheduler : public TrialScheduler {
 public:
  // REQUIRES: spec.max_t is set, grace_period > 0, reduction_factor > 1.
  explicit AshaScheduler(const core::SchedulerSpec& spec);

  core::Decision OnReport(core::TrialId trial, double time,
                          double value) override;
  void Restore(core::TrialId trial, const core::RungDecision& record) override;
  std::vector<double> Milestones() const override { return milestones_; }

 private:
  // (internal value, insertion sequence): lower internal values are better.
  using Key = std::pair<double, int64_t>;
  using Rung = __gnu_pbds::tree<Key, __gnu_pbds::null_type, std::less<Key>,
                                __gnu_pbds::rb_tree_tag,
                                __gnu_pbds::tree_order_statistics_node_update>;

  // Sign-flipped so that lower is better; non-finite values become +inf.
  double Internal(double value) const;
  core::RungDecision Record(int rung, double value);

  std::vector<double> milestones_;
  std::vector<Rung> rungs_;
  double max_t_;
  double reduction_factor_;
  core::Mode mode_;
  int64_t sequence_ = 0;
  // Index of the next rung each trial can reach (absent = 0).
  std::unordered_map<core::TrialId, int> next_rung_;
};

// True iff `time` has reached `milestone`, allowing for float rounding.
bool Reached(double time, double milestone);

}  // namespace tuner::schedulers

#endif  // TUNER_SCHEDULERS_ASHA_H_
