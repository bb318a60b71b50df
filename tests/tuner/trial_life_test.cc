// TrialLife: the phases of a live trial and the one place they change.
#include "tuner/sweep/trial_life.h"

#include <stdexcept>

#include "tests/catch.h"

namespace tuner::testing {
namespace {

TrialLife Running() {
  TrialLife life;
  life.Launched(AttemptOrigin::kThisTuner);
  return life;
}

TEST_CASE("a launched trial is judged until a verdict, then holds it",
          "[tuner][sweep][life]") {
  TrialLife life;
  CHECK(life.phase() == TrialPhase::kQueued);
  CHECK_FALSE(life.Undecided());
  life.Launched(AttemptOrigin::kThisTuner);
  CHECK(life.phase() == TrialPhase::kRunning);
  CHECK(life.Undecided());
  CHECK(life.Verdict() == core::Action::kContinue);

  struct Case {
    core::Action verdict;
    TrialPhase phase;
  };
  for (Case c : {Case{core::Action::kComplete, TrialPhase::kCompleting},
                 Case{core::Action::kStop, TrialPhase::kStopping},
                 Case{core::Action::kPause, TrialPhase::kPausing}}) {
    TrialLife decided = Running();
    decided.Decided(c.verdict);
    CHECK(decided.phase() == c.phase);
    CHECK(decided.Verdict() == c.verdict);
    CHECK_FALSE(decided.Undecided());
    // A second verdict on the same attempt is the sweep's bug.
    CHECK_THROWS_AS(decided.Decided(core::Action::kStop), std::logic_error);
  }
}

TEST_CASE("a preempted trial is still judged and goes back to the queue",
          "[tuner][sweep][life]") {
  TrialLife life = Running();
  life.Preempt();
  CHECK(life.phase() == TrialPhase::kPreempting);
  CHECK(life.Undecided());
  CHECK_THROWS_AS(life.Preempt(), std::logic_error);
  life.Requeue();
  CHECK(life.phase() == TrialPhase::kQueued);

  TrialLife stopped = Running();
  stopped.Preempt();
  stopped.Decided(core::Action::kStop);  // a report decided it meanwhile
  CHECK(stopped.phase() == TrialPhase::kStopping);
}

TEST_CASE("a pause ends in paused, or runs again when promoted first",
          "[tuner][sweep][life]") {
  TrialLife life = Running();
  life.Decided(core::Action::kPause);
  life.Paused();
  CHECK(life.phase() == TrialPhase::kPaused);
  CHECK_THROWS_AS(life.Requeue(), std::logic_error);  // promote it first
  life.Promote();
  CHECK(life.phase() == TrialPhase::kQueued);
  life.Launched(AttemptOrigin::kThisTuner);
  CHECK(life.phase() == TrialPhase::kRunning);

  TrialLife early = Running();
  early.Decided(core::Action::kPause);
  early.Promote();  // before its pausing attempt exited
  CHECK(early.phase() == TrialPhase::kResuming);
  CHECK(early.Verdict() == core::Action::kPause);
  CHECK_THROWS_AS(early.Paused(), std::logic_error);
  early.Requeue();
  CHECK(early.phase() == TrialPhase::kQueued);

  TrialLife ended = Running();
  ended.Decided(core::Action::kPause);
  ended.StopPaused();  // the scheduler ends it unpromoted
  CHECK(ended.phase() == TrialPhase::kStopping);
  TrialLife relaunched = Running();  // held paused by the scheduler
  relaunched.StopPaused();
  CHECK(relaunched.phase() == TrialPhase::kStopping);
  CHECK_THROWS_AS(ended.StopPaused(), std::logic_error);
  CHECK_THROWS_AS(Running().Promote(), std::logic_error);
  TrialLife queued;
  queued.Promote();  // already queued to run again
  CHECK(queued.phase() == TrialPhase::kQueued);
}

TEST_CASE(
    "only a queued trial is launched or restored, and the error says "
    "both phases",
    "[tuner][sweep][life]") {
  TrialLife life = Running();
  try {
    life.Launched(AttemptOrigin::kThisTuner);
    FAIL("launched twice");
  } catch (const std::logic_error& e) {
    CHECK(std::string(e.what()) == "a trial running cannot be launched");
  }
  CHECK_THROWS_AS(life.Restore(TrialPhase::kStopping), std::logic_error);

  TrialLife restored;
  restored.Restore(TrialPhase::kResuming);
  restored.Adopted();
  CHECK(restored.origin() == AttemptOrigin::kEarlierTuner);
  CHECK(restored.Verdict() == core::Action::kPause);
  restored.Requeue();  // its next attempt is this tuner's
  CHECK(restored.origin() == AttemptOrigin::kThisTuner);
  CHECK(std::string(ToString(TrialPhase::kPreempting)) == "preempting");
}

}  // namespace
}  // namespace tuner::testing
