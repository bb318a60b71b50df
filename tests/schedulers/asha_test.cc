#include "schedulers/asha.h"

#include <cmath>
#include <limits>

#include "schedulers/brackets.h"
#include "schedulers/fifo.h"
#include "tests/catch.h"

namespace tuner::schedulers {
namespace {

core::SchedulerSpec Spec(double max_t, core::Mode mode = core::Mode::kMax) {
  core::SchedulerSpec spec;
  spec.max_t = max_t;
  spec.grace_period = 1;
  spec.reduction_factor = 3;
  spec.mode = mode;
  return spec;
}

TEST_CASE("asha rungs sit at grace * rf^k below max_t", "[schedulers][asha]") {
  CHECK(AshaScheduler(Spec(27)).Milestones() == std::vector<double>{1, 3, 9});
  CHECK(AshaScheduler(Spec(28)).Milestones() ==
        std::vector<double>{1, 3, 9, 27});
  core::SchedulerSpec spec = Spec(100);
  spec.grace_period = 2;
  spec.reduction_factor = 4;
  CHECK(AshaScheduler(spec).Milestones() == std::vector<double>{2, 8, 32});
}

TEST_CASE("a time within 0.01 of a mark is near it, the bound included",
          "[schedulers][asha]") {
  for (double mark : {1.0, 3.0, 9.0, 27.0, 81.0, 100.0, 243.0}) {
    INFO(mark);
    CHECK(NearMark(mark - 0.01, mark));
    CHECK(NearMark(mark + 0.01, mark));
    CHECK(NearMark(mark - 0.0004, mark));
    CHECK_FALSE(NearMark(mark - 0.0101, mark));
    CHECK_FALSE(NearMark(mark - 1, mark));
  }
  // Below one unit the tolerance is 1% of the mark.
  CHECK(NearMark(0.099, 0.1));
  CHECK_FALSE(NearMark(0.098, 0.1));
}

TEST_CASE("rungs and bracket sizes stay bounded whatever the spec",
          "[schedulers][asha]") {
  // Unbounded, max_t: .inf would make rungs without end and a factor near 1
  // allocate without end.
  CHECK(AshaScheduler(Spec(std::numeric_limits<double>::infinity()))
            .Milestones()
            .size() == kMaxRungs);
  core::SchedulerSpec spec = Spec(1e6);
  spec.reduction_factor = 1 + 1e-9;
  CHECK(AshaScheduler(spec).Milestones().size() == kMaxRungs);
  spec = Spec(1e300);
  spec.grace_period = 1e-300;
  spec.reduction_factor = 1e9;
  spec.brackets = kMaxRungs;
  auto brackets = PlanBrackets(spec);
  REQUIRE_FALSE(brackets.empty());
  for (const auto& b : brackets) {
    CHECK(b.trials >= 1);
    CHECK(b.trials <= kMaxBracketTrials);
  }
}

TEST_CASE("asha keeps the top floor(n/rf) and at least one",
          "[schedulers][asha]") {
  AshaScheduler asha(Spec(27));
  // n=1: rank 1 of 1 continues; n=2: keep 1, a worse value stops.
  CHECK(asha.OnReport(1, 1, 0.5).action == core::Action::kContinue);
  auto second = asha.OnReport(2, 1, 0.4);
  CHECK(second.action == core::Action::kStop);
  REQUIRE(second.rungs.size() == 1);
  CHECK(second.rungs[0].rank == 2);
  CHECK(second.rungs[0].n == 2);
  asha.OnReport(3, 1, 0.1);
  asha.OnReport(4, 1, 0.2);
  // n=5: keep 1. Rank 2 (.5 is better) stops; rank 1 continues.
  CHECK(asha.OnReport(5, 1, 0.45).action == core::Action::kStop);
  // n=6: keep 2. Better: .5 → rank 2 continues.
  CHECK(asha.OnReport(6, 1, 0.48).action == core::Action::kContinue);
  // n=7: keep 2. Better: .5 .48 → rank 3 stops.
  auto seventh = asha.OnReport(7, 1, 0.46);
  CHECK(seventh.rungs[0].rank == 3);
  CHECK(seventh.rungs[0].n == 7);
  CHECK(seventh.action == core::Action::kStop);
}

TEST_CASE("asha ties continue because only strictly better values count",
          "[schedulers][asha]") {
  AshaScheduler asha(Spec(27));
  asha.OnReport(1, 1, 0.5);
  auto tie = asha.OnReport(2, 1, 0.5);
  CHECK(tie.rungs[0].rank == 1);
  CHECK(tie.action == core::Action::kContinue);
}

TEST_CASE("asha min mode ranks lower values first", "[schedulers][asha]") {
  AshaScheduler asha(Spec(27, core::Mode::kMin));
  asha.OnReport(1, 1, 0.5);
  CHECK(asha.OnReport(2, 1, 0.4).action == core::Action::kContinue);
  CHECK(asha.OnReport(3, 1, 0.6).action == core::Action::kStop);
}

TEST_CASE("asha stops a non-finite value and ranks it last",
          "[schedulers][asha]") {
  AshaScheduler asha(Spec(27));
  auto nan = asha.OnReport(1, 1, std::nan(""));  // first at its rung
  CHECK(nan.action == core::Action::kStop);
  CHECK(asha.OnReport(2, 1, 0.1).rungs[0].rank == 1);
  // Between rungs too.
  asha.OnReport(3, 1, 0.9);
  auto inf = asha.OnReport(3, 2, -INFINITY);
  CHECK(inf.action == core::Action::kStop);
  CHECK(inf.rungs.empty());
}

TEST_CASE("asha judges a report that crosses rungs at each rung lowest first",
          "[schedulers][asha]") {
  AshaScheduler asha(Spec(27));
  auto jump = asha.OnReport(1, 10, 0.7);  // crosses 1, 3 and 9
  REQUIRE(jump.rungs.size() == 3);
  CHECK(jump.rungs[0].milestone == 1);
  CHECK(jump.rungs[2].milestone == 9);
  CHECK(jump.action == core::Action::kContinue);
  // A loser at the lowest rung is not recorded at the higher ones.
  asha.OnReport(2, 1, 0.8);
  auto lose = asha.OnReport(3, 5, 0.1);
  REQUIRE(lose.rungs.size() == 1);
  CHECK(lose.action == core::Action::kStop);
  CHECK(asha.OnReport(4, 3, 0.05).rungs[0].n == 4);  // rung 1: 1,2,3,4
}

TEST_CASE("asha never fills a passed rung later", "[schedulers][asha]") {
  AshaScheduler asha(Spec(27));
  CHECK(asha.OnReport(1, 4, 0.5).rungs.size() == 2);  // rungs 1 and 3
  CHECK(asha.OnReport(1, 5, 0.9).rungs.empty());
  CHECK(asha.OnReport(1, 9, 0.9).rungs.size() == 1);
  // Rung 1 still holds the value 0.5 that trial 1 had when it passed.
  auto other = asha.OnReport(2, 1, 0.6);
  CHECK(other.rungs[0].rank == 1);
}

TEST_CASE("asha completes a trial at max_t", "[schedulers][asha]") {
  AshaScheduler asha(Spec(9));
  asha.OnReport(1, 1, 0.5);
  asha.OnReport(1, 3, 0.5);
  CHECK(asha.OnReport(1, 8, 0.5).action == core::Action::kContinue);
  CHECK(asha.OnReport(1, 9, 0.5).action == core::Action::kComplete);
}

TEST_CASE("asha restored from its records decides as the original",
          "[schedulers][asha]") {
  AshaScheduler original(Spec(27));
  AshaScheduler restored(Spec(27));
  double values[] = {0.3, 0.9, 0.5, 0.7, 0.1, 0.8};
  for (int i = 0; i < 6; ++i) {
    for (const auto& r : original.OnReport(i, 3, values[i]).rungs) {
      restored.Restore(i, r);
    }
  }
  core::TrialId next = 100;
  for (double v : {0.75, 0.2, 0.95}) {
    auto a = original.OnReport(next, 1, v);
    auto b = restored.OnReport(next++, 1, v);
    REQUIRE(a.rungs.size() == 1);
    REQUIRE(b.rungs.size() == 1);
    CHECK(a.action == b.action);
    CHECK(a.rungs[0].rank == b.rungs[0].rank);
    CHECK(a.rungs[0].n == b.rungs[0].n);
  }
}

TEST_CASE("fifo never stops and completes at max_t", "[schedulers][fifo]") {
  FifoScheduler fifo(Spec(5));
  CHECK(fifo.OnReport(1, 1, -1e9).action == core::Action::kContinue);
  CHECK(fifo.OnReport(1, 5, 0).action == core::Action::kComplete);
  core::SchedulerSpec open;
  open.type = core::SchedulerType::kFifo;
  CHECK(FifoScheduler(open).OnReport(1, 1e9, 0).action ==
        core::Action::kContinue);
}

TEST_CASE(
    "pasha promotes past the top rung only once the top two rungs "
    "rank differently",
    "[schedulers][asha][pasha]") {
  core::SchedulerSpec spec = Spec(27, core::Mode::kMin);  // rungs 1, 3, 9
  spec.promotion = true;
  auto start = [](AshaScheduler& asha) {
    for (core::TrialId t = 1; t <= 12; ++t) {
      asha.OnAdd(t, t - 1);
      CHECK(asha.OnReport(t, 1, static_cast<double>(t)).action ==
            core::Action::kPause);
    }
    for (core::TrialId want : {1, 2, 3, 4}) {  // the top 12 / 3 of rung 1
      auto event = asha.NextPromotion();
      REQUIRE(event);
      CHECK(event->trial == want);
      CHECK(event->record.milestone == 1);
    }
    // Rung 3 ranks 1, 2 and 3 as rung 1 did.
    asha.OnReport(1, 3, 0.5);
    asha.OnReport(2, 3, 0.6);
    asha.OnReport(3, 3, 0.7);
  };
  AshaScheduler plain(spec);
  start(plain);
  auto promoted = plain.NextPromotion();  // the best of 3 at rung 3
  REQUIRE(promoted);
  CHECK(promoted->trial == 1);
  CHECK(promoted->record.milestone == 3);

  spec.pasha = true;
  AshaScheduler asha(spec);
  CHECK(asha.top_rung() == 1);
  start(asha);
  CHECK(asha.top_rung() == 1);  // stable: nothing leaves rung 3
  CHECK_FALSE(asha.NextPromotion());
  // Trial 4 overtakes the three: the ranking changed, so the top rung grows
  // and rung 3's best is promoted towards 9.
  CHECK(asha.OnReport(4, 3, 0.4).action == core::Action::kPause);
  CHECK(asha.top_rung() == 2);
  auto event = asha.NextPromotion();
  REQUIRE(event);
  CHECK(event->trial == 4);
  CHECK(event->record.milestone == 3);
}

TEST_CASE(
    "pasha's epsilon: a crossing within the lower rungs' does not "
    "grow the top rung",
    "[schedulers][asha][pasha]") {
  core::SchedulerSpec spec = Spec(82, core::Mode::kMin);
  spec.promotion = true;
  spec.pasha = true;
  auto scenario = [&](double trial1_at_9) {
    AshaScheduler asha(spec);
    for (core::TrialId t = 1; t <= 18; ++t) {
      asha.OnAdd(t, t - 1);
      asha.OnReport(t, 1, static_cast<double>(t));
    }
    for (int i = 0; i < 6; ++i) asha.NextPromotion();  // 1..6 to rung 3
    const double at_3[] = {0.5, 0.1, 0.7, 0.8, 0.9, 1.0};
    for (core::TrialId t = 1; t <= 6; ++t) asha.OnReport(t, 3, at_3[t - 1]);
    CHECK(asha.top_rung() == 2);  // 2 overtook 1 (by 0.4): epsilon 0.4
    auto a = asha.NextPromotion(), b = asha.NextPromotion();  // 2, then 1
    REQUIRE((a && b));
    CHECK(a->trial == 2);
    CHECK(b->trial == 1);
    asha.OnReport(2, 9, 0.05);
    asha.OnReport(1, 9, trial1_at_9);
    return asha.top_rung();
  };
  CHECK(scenario(0.04) == 2);  // 1 overtakes 2 by 0.01: within epsilon
  CHECK(scenario(-1.0) == 3);  // by 1.05: the ranking changed
}

}  // namespace
}  // namespace tuner::schedulers
