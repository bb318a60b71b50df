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

TEST_CASE("fifo without max_t is unbounded", "[schedulers][plan]") {
  core::SchedulerSpec spec;
  spec.type = core::SchedulerType::kFifo;
  CHECK_FALSE(PlanBudget(spec, 10).bounded);
  CHECK(PlanBudget(Spec(core::SchedulerType::kMedian, 5), 10).total_units ==
        Approx(50));
}

}  // namespace
}  // namespace tuner::schedulers
