// BudgetPlan: what a sweep is expected to spend, before it starts.
#ifndef TUNER_SCHEDULERS_PLAN_H_
#define TUNER_SCHEDULERS_PLAN_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "core/scheduler_spec.h"

namespace tuner::schedulers {

struct RungPlan {
  double milestone = 0;
  double trials = 0;  // expected to reach it (fractional: an expectation)
};

struct BracketPlan {
  int bracket = 0;
  double trials = 0;
  std::vector<RungPlan> rungs;  // then max_t, as the last entry
  double units = 0;             // time_attr units its trials train
};

struct BudgetPlan {
  std::vector<BracketPlan> brackets;
  double total_units = 0;  // 0 when unknown (no max_t)
  bool bounded = true;     // false: trials run until they exit (no max_t)
};

// The expected budget of `num_trials` trials. asha: trials split between
// brackets by their shares and 1/rf of a rung's trials reach the next;
// hyperband: successive halving's exact counts per group, max(1, floor(n /
// rf)); median and fifo: every trial to max_t (an upper bound). A trial
// stopped at a rung trains up to it; promotion-type sweeps are counted as
// resuming from checkpoints.
BudgetPlan PlanBudget(const core::SchedulerSpec& spec, int64_t num_trials);

}  // namespace tuner::schedulers

#endif  // TUNER_SCHEDULERS_PLAN_H_
