// ReportIntake: what a trial's output lines make before they are judged.
#include "tuner/sweep/report_intake.h"

#include <cmath>
#include <limits>

#include "tests/catch.h"

namespace tuner::testing {
namespace {

double Same(double time) { return time; }

TEST_CASE(
    "a report's time is its time_attr, snapped, a non-finite one is "
    "no report",
    "[tuner][sweep][intake]") {
  ReportIntake intake(7, "acc", "epoch");
  auto near = [](double t) { return std::abs(t - 3) < 0.01 ? 3.0 : t; };
  auto r = intake.Take({{"epoch", 2.995}, {"acc", 0.5}}, 120, 2, near);
  REQUIRE(r);
  CHECK(r->trial == 7);
  CHECK(r->time == 3.0);
  CHECK(r->value == 0.5);
  CHECK(r->attempt == 2);
  CHECK(r->offset == 120);
  auto loss = intake.Take({{"epoch", 3.5}, {"loss", 1.0}}, 130, 2, near);
  REQUIRE(loss);
  CHECK_FALSE(loss->value);  // stored, never judged
  CHECK_FALSE(intake.Take(
      {{"epoch", std::numeric_limits<double>::quiet_NaN()}, {"acc", 0.6}}, 140,
      2, near));
  CHECK(intake.seen_keys().Text() == "acc, epoch, loss");
}

TEST_CASE(
    "under time_attr report a new attempt repeats its reports up to "
    "the last judged one, unseen",
    "[tuner][sweep][intake]") {
  ReportIntake intake(1, "acc", "report");
  CHECK(intake.Take({{"acc", 0.1}}, 1, 1, Same)->time == 1.0);
  CHECK(intake.Take({{"loss", 2.0}}, 2, 1, Same)->time == std::nullopt);
  CHECK(intake.Take({{"acc", 0.2}}, 3, 1, Same)->time == 2.0);
  intake.NewAttempt(2.0);
  CHECK_FALSE(intake.Take({{"acc", 0.1}}, 1, 2, Same));
  CHECK_FALSE(intake.Take({{"loss", 2.0}}, 2, 2, Same));  // stored before
  CHECK_FALSE(intake.Take({{"acc", 0.2}}, 3, 2, Same));
  auto next = intake.Take({{"loss", 1.5}}, 4, 2, Same);  // past the repeats
  REQUIRE(next);
  CHECK_FALSE(next->time);
  CHECK(intake.Take({{"acc", 0.3}}, 5, 2, Same)->time == 3.0);
  // A resumed tuner: 3 objective reports made, repeats up to 2.
  ReportIntake resumed(1, "acc", "report");
  resumed.Resume(3, 2.0);
  CHECK(resumed.Take({{"acc", 0.4}}, 6, 2, Same)->time == 4.0);
}

TEST_CASE(
    "withheld reports: the newest judged one, then the newest after "
    "it, until one is stored",
    "[tuner][sweep][intake]") {
  ReportIntake intake(1, "acc", "epoch");
  auto report = [](double epoch) {
    return storage::ReportRecord{1, 0, epoch, 0.5, {}, 1, 0};
  };
  intake.Withhold(report(1), true);
  intake.Withhold(report(1.5), false);
  intake.Withhold(report(1.7), false);  // supersedes 1.5
  auto held = intake.TakeWithheld();
  REQUIRE(held.size() == 2);
  CHECK(held[0].report.time == 1.0);
  CHECK(held[0].judged);
  CHECK(held[1].report.time == 1.7);
  CHECK(intake.TakeWithheld().empty());

  intake.Withhold(report(2), true);
  intake.Withhold(report(2.5), false);
  intake.Stored(false);  // an unjudged report stored: only 2.5 goes
  REQUIRE(intake.TakeWithheld().size() == 1);
  intake.Withhold(report(3), true);
  intake.Withhold(report(4), true);  // supersedes 3
  intake.Stored(true);               // a judged one stored: all go
  CHECK(intake.TakeWithheld().empty());
}

TEST_CASE("the names a trial reported are kept in bounded memory",
          "[tuner][sweep][intake]") {
  SeenKeys keys;
  core::Metrics many;
  for (int i = 0; i < 50; ++i)
    many.push_back({"m" + std::to_string(100 + i), 1});
  keys.Add(many);
  std::string text = keys.Text();
  CHECK(text.rfind("m100, m101,", 0) == 0);
  CHECK(text.find("m139") != std::string::npos);
  CHECK(text.find("m140") == std::string::npos);
  CHECK(text.size() - text.rfind(", ... (more than 40)") ==
        std::string(", ... (more than 40)").size());
}

}  // namespace
}  // namespace tuner::testing
