// The small rules every module shares from core/: which value is better in
// a mode, and the text of a rung's verdict.
#include <cmath>

#include "core/trial.h"
#include "tests/catch.h"

namespace tuner::core {
namespace {

TEST_CASE("better is strict in each mode and never for NaN", "[core]") {
  CHECK(Better(2, 1, Mode::kMax));
  CHECK_FALSE(Better(1, 2, Mode::kMax));
  CHECK(Better(1, 2, Mode::kMin));
  CHECK_FALSE(Better(1, 1, Mode::kMin));
  CHECK_FALSE(Better(1, 1, Mode::kMax));
  CHECK_FALSE(Better(NAN, 1, Mode::kMax));
  CHECK_FALSE(Better(1, NAN, Mode::kMin));
  CHECK(Better(INFINITY, 1, Mode::kMax));
}

TEST_CASE("a rung's reason names the rung, the rank and the count", "[core]") {
  RungDecision d;
  d.milestone = 3;
  d.rank = 5;
  d.n = 9;
  CHECK(RungReason(d, false) == "rung 3: rank 5 of 9");
  d.milestone = 0.5;
  CHECK(RungReason(d, true) == "paused at rung 0.5: rank 5 of 9");
}

}  // namespace
}  // namespace tuner::core
