// FailFast: the rule alone, fed trial ends.
#include "tests/catch.h"
#include "tuner/sweep/fail_fast.h"

namespace tuner::testing {
namespace {

using core::TrialStatus;

TEST_CASE("fail_fast fires once the first n ends failed the same way",
          "[tuner][sweep][fail_fast]") {
  FailFast rule(3);
  CHECK_FALSE(rule.Ended(TrialStatus::kFailed, "exit code 2: no such file"));
  CHECK_FALSE(rule.Ended(TrialStatus::kPaused, "paused at rung 1"));
  CHECK_FALSE(rule.Ended(TrialStatus::kFailed, "exit code 2: no such file"));
  auto why = rule.Ended(TrialStatus::kFailed, "exit code 2: no such file");
  REQUIRE(why);
  CHECK(*why ==
        "fail_fast: the first 3 trials all failed the same way (exit code 2: "
        "no such file); nothing more is launched (trial.fail_fast in "
        "docs/config.md)");
  CHECK_FALSE(rule.Ended(TrialStatus::kFailed, "exit code 2: no such file"));
}

TEST_CASE(
    "fail_fast is disarmed by an end of another kind or reason, and "
    "off at 0",
    "[tuner][sweep][fail_fast]") {
  FailFast other(2);
  CHECK_FALSE(other.Ended(TrialStatus::kFailed, "a"));
  CHECK_FALSE(other.Ended(TrialStatus::kFailed, "b"));
  CHECK_FALSE(other.Ended(TrialStatus::kFailed, "b"));  // disarmed for good
  FailFast good(2);
  CHECK_FALSE(good.Ended(TrialStatus::kStopped, "rung 1: rank 3 of 3"));
  CHECK_FALSE(good.Ended(TrialStatus::kFailed, "a"));
  CHECK_FALSE(good.Ended(TrialStatus::kFailed, "a"));
  FailFast off(0);
  CHECK_FALSE(off.Ended(TrialStatus::kFailed, "a"));
}

}  // namespace
}  // namespace tuner::testing
