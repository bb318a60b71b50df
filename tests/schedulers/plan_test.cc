#include "schedulers/plan.h"

#include "tests/catch.h"

namespace tuner::schedulers {
namespace {

core::SchedulerSpec Spec(core::SchedulerType type, double max_t) {
  core::SchedulerSpec spec;
  spec.type = type;
  spec.max_t = max_t;
  return spec;
}

TEST_CASE("the asha plan: 1/rf of a rung's trials reach the next",
          "[schedulers][plan]") {
  auto plan = PlanBudget(Spec(core::SchedulerType::kAsha, 27), 81);
  REQUIRE(plan.brackets.size() == 1);
  const auto& rungs = plan.brackets[0].rungs;
  REQUIRE(rungs.size() == 4);  // 1, 3, 9 and max_t
  CHECK(rungs[0].trials == Approx(81));
  CHECK(rungs[1].trials == Approx(27));
  CHECK(rungs[3].milestone == 27);
  CHECK(rungs[3].trials == Approx(3));
  // 54 stop at 1, 18 at 3, 6 at 9, 3 run 27.
  CHECK(plan.total_units == Approx(54 + 18 * 3 + 6 * 9 + 3 * 27));
}

TEST_CASE("the hyperband plan: successive halving counts per group",
          "[schedulers][plan]") {
  // max_t 9: brackets of 9, 5 and 3 trials; 17 trials are one iteration.
  auto plan = PlanBudget(Spec(core::SchedulerType::kHyperband, 9), 17);
  REQUIRE(plan.brackets.size() == 3);
  CHECK(plan.brackets[0].rungs[1].trials == 3);
  CHECK(plan.brackets[0].rungs[2].trials == 1);
  CHECK(plan.brackets[1].trials == 5);
  CHECK(plan.brackets[2].rungs.back().trials == 3);
  CHECK(plan.total_units == Approx((6 * 1 + 2 * 3 + 9) + (4 * 3 + 9) + 27));
}

TEST_CASE("a plan's counts stay exact past 2^50 trials per bracket",
          "[schedulers][plan]") {
  // rf 1e10 up to max_t 1e30: HyperBand's count of bracket 0 saturates at
  // kMaxBracketTrials, so num_trials times it is past int64_t's range.
  for (int64_t num_trials : {int64_t{10000}, int64_t{10000000}}) {
    INFO(num_trials);
    core::SchedulerSpec spec = Spec(core::SchedulerType::kAsha, 1e30);
    spec.reduction_factor = 1e10;
    auto plan = PlanBudget(spec, num_trials);
    REQUIRE(plan.brackets.size() == 1);
    CHECK(plan.brackets[0].trials == static_cast<double>(num_trials));
    CHECK(plan.brackets[0].rungs[0].trials == static_cast<double>(num_trials));
    CHECK(plan.brackets[0].units > 0);
    spec.brackets = 4;
    double sum = 0;
    for (const auto& b : PlanBudget(spec, num_trials).brackets) {
      CHECK(b.trials >= 0);
      CHECK(b.units >= 0);
      sum += b.trials;
    }
    CHECK(sum == Approx(static_cast<double>(num_trials)));
    spec.type = core::SchedulerType::kHyperband;
    auto hyperband = PlanBudget(spec, num_trials);
    CHECK(hyperband.brackets[0].trials == static_cast<double>(num_trials));
    CHECK(hyperband.total_units > 0);
  }
}

TEST_CASE("fifo without max_t is unbounded", "[schedulers][plan]") {
  core::SchedulerSpec spec;
  spec.type = core::SchedulerType::kFifo;
  CHECK_FALSE(PlanBudget(spec, 10).bounded);
  CHECK(PlanBudget(Spec(core::SchedulerType::kMedian, 5), 10).total_units ==
        Approx(50));
}

}  // namespace
}  // namespace tuner::schedulers
