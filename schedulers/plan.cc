#include "schedulers/plan.h"

#include <algorithm>
#include <cmath>

#include "schedulers/brackets.h"
#include "schedulers/ranked_rung.h"

namespace tuner::schedulers {

namespace {

// Expected counts at each rung given `trials` at the first; `reach(n)` is
// how many of n go on.
template <typename Reach>
BracketPlan PlanBracket(int index, const Bracket& bracket, double max_t,
                        double trials, Reach reach) {
  BracketPlan plan;
  plan.bracket = index;
  plan.trials = trials;
  double n = trials;
  for (double milestone : bracket.milestones) {
    plan.rungs.push_back({milestone, n});
    double next = reach(n);
    plan.units += (n - next) * milestone;
    n = next;
  }
  plan.rungs.push_back({max_t, n});
  plan.units += n * max_t;
  return plan;
}

BudgetPlan PlanAsha(const core::SchedulerSpec& spec, int64_t num_trials) {
  BudgetPlan plan;
  auto brackets = PlanBrackets(spec);
  double weights = 0;
  for (const auto& b : brackets) weights += static_cast<double>(b.trials);
  for (size_t b = 0; b < brackets.size(); ++b) {
    // In doubles: num_trials times a bracket's count (up to 2^50) is past
    // int64_t's range.
    double share = static_cast<double>(num_trials) *
                   (static_cast<double>(brackets[b].trials) / weights);
    plan.brackets.push_back(
        PlanBracket(static_cast<int>(b), brackets[b], *spec.max_t, share,
                    [&](double n) { return n / spec.reduction_factor; }));
  }
  return plan;
}

BudgetPlan PlanHyperband(const core::SchedulerSpec& spec, int64_t num_trials) {
  auto brackets = HyperbandBrackets(spec);
  int64_t period = 0;
  for (const auto& b : brackets) period += b.trials;
  BudgetPlan plan;
  for (size_t b = 0; b < brackets.size(); ++b) {
    // Whole iterations, then what the last partial one deals to this group.
    int64_t before = 0;
    for (size_t k = 0; k < b; ++k) before += brackets[k].trials;
    int64_t full = num_trials / period;
    int64_t rest = std::clamp<int64_t>(num_trials % period - before, 0,
                                       brackets[b].trials);
    auto reach = [&](double n) {
      if (n <= 0) return 0.0;
      return std::max(
          1.0, static_cast<double>(
                   TopCount(static_cast<int64_t>(n), spec.reduction_factor)));
    };
    BracketPlan whole = PlanBracket(static_cast<int>(b), brackets[b],
                                    *spec.max_t, brackets[b].trials, reach);
    BracketPlan part =
        PlanBracket(static_cast<int>(b), brackets[b], *spec.max_t, rest, reach);
    for (size_t r = 0; r < whole.rungs.size(); ++r)
      whole.rungs[r].trials =
          whole.rungs[r].trials * full + part.rungs[r].trials;
    whole.trials = whole.trials * full + part.trials;
    whole.units = whole.units * full + part.units;
    plan.brackets.push_back(whole);
  }
  return plan;
}

}  // namespace

BudgetPlan PlanBudget(const core::SchedulerSpec& spec, int64_t num_trials) {
  BudgetPlan plan;
  using core::SchedulerType;
  if (spec.type == SchedulerType::kAsha) {
    plan = PlanAsha(spec, num_trials);
  } else if (spec.type == SchedulerType::kHyperband) {
    plan = PlanHyperband(spec, num_trials);
  } else if (spec.max_t) {
    BracketPlan all;
    all.trials = static_cast<double>(num_trials);
    all.rungs.push_back({*spec.max_t, all.trials});
    all.units = all.trials * *spec.max_t;
    plan.brackets.push_back(all);
  } else {
    plan.bounded = false;
    BracketPlan all;
    all.trials = static_cast<double>(num_trials);
    plan.brackets.push_back(all);
  }
  for (const auto& b : plan.brackets) plan.total_units += b.units;
  return plan;
}

}  // namespace tuner::schedulers
