// What `tuner status` and `tuner trials` print for an experiment that
// failed inside the tuner: its stored reason, on one line.
#include "tuner/text/query_text.h"

#include <algorithm>

#include "storage/trial_store.h"
#include "tests/catch.h"
#include "tests/failed_experiment.h"
#include "tuner/base/one_line.h"

namespace tuner {
namespace {

storage::ExperimentRecord Failed(storage::TrialStore& store,
                                 const std::string& reason) {
  return testing::AddFailedExperiment(store, "broken", reason);
}

long Lines(const std::string& text) {
  return std::count(text.begin(), text.end(), '\n');
}

TEST_CASE("status and trials show why an experiment failed, on one line",
          "[tuner][query]") {
  auto store = storage::TrialStore::Open(":memory:").value();
  auto e = Failed(*store, "internal error in a report: boom\nsecond line");

  auto status = StatusText(*store, "broken");
  REQUIRE(status.ok());
  INFO(status.value());
  CHECK(status.value().find("\n  failed because: internal error in a report: "
                            "boom\\x0asecond line\n") != std::string::npos);
  CHECK(Lines(status.value()) == 3);  // header, row, reason

  auto trials = TrialsText(*store, e, TrialListing{"table"});
  REQUIRE(trials.ok());
  CHECK(trials.value().find("experiment failed because: internal error in a "
                            "report: boom\\x0asecond line\n") !=
        std::string::npos);
}

TEST_CASE("an experiment that did not fail shows no reason line",
          "[tuner][query]") {
  auto store = storage::TrialStore::Open(":memory:").value();
  auto e = Failed(*store, "gone");
  REQUIRE(store->SetExperimentStatus(e.id, "finished").ok());
  auto status = StatusText(*store, "broken");
  REQUIRE(status.ok());
  CHECK(Lines(status.value()) == 2);
  CHECK(status.value().find("because") == std::string::npos);
}

TEST_CASE("one line: C0, DEL, C1 and bidi overrides are escaped",
          "[tuner][query]") {
  CHECK(OneLine("a\nb\x1b[2J\x7f") == "a\\x0ab\\x1b[2J\\x7f");
  // U+009B (CSI, a one-byte escape on some terminals), U+202E (right-to-
  // left override), U+2066 (left-to-right isolate); other text untouched.
  CHECK(OneLine("a\xc2\x9b"
                "b\xe2\x80\xae"
                "c\xe2\x81\xa6"
                "d\xc3\xa9") == "a\\u009bb\\u202ec\\u2066d\xc3\xa9");
}

}  // namespace
}  // namespace tuner
