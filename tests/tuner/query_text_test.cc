// What `tuner status` and `tuner trials` print for an experiment that
// failed inside the tuner: its stored reason, on one line.
#include "tuner/text/query_text.h"

#include <algorithm>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "storage/trial_store.h"
#include "tests/catch.h"
#include "tests/support/failed_experiment.h"
#include "tuner/base/one_line.h"
#include "tuner/text/printable_stream.h"

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
  REQUIRE(store->experiments()
              .SetStatus(e.id, core::ExperimentStatus::kFinished)
              .ok());
  auto status = StatusText(*store, "broken");
  REQUIRE(status.ok());
  CHECK(Lines(status.value()) == 2);
  CHECK(status.value().find("because") == std::string::npos);
}

TEST_CASE("the status table counts every status, paused trials too",
          "[tuner][query]") {
  auto store = storage::TrialStore::Open(":memory:").value();
  auto e = Failed(*store, "gone");
  using S = core::TrialStatus;
  // pending 1, running 1, paused 2, completed 1, stopped 1, failed 1.
  const S ends[] = {S::kPending,   S::kRunning, S::kPaused, S::kPaused,
                    S::kCompleted, S::kStopped, S::kFailed};
  int64_t index = 0;
  for (S end : ends) {
    auto t = store->trials().Add(e.id, index++, {}).value();
    if (end == S::kPending) continue;
    REQUIRE(store->trials().MarkRunning(t).ok());
    if (end == S::kRunning) continue;
    REQUIRE(store->trials().Finish(t, {end, 0, "", std::nullopt}).ok());
  }
  REQUIRE(store->Commit().ok());
  auto status = StatusText(*store, "broken");
  REQUIRE(status.ok());
  INFO(status.value());
  std::istringstream lines(status.value());
  std::string header, row;
  std::getline(lines, header);
  std::getline(lines, row);
  std::istringstream h(header), r(row);
  std::vector<std::string> names, cells;
  for (std::string w; h >> w;) names.push_back(w);
  for (std::string w; r >> w;) cells.push_back(w);
  REQUIRE(names.size() >= 8);
  REQUIRE(cells.size() >= 8);
  std::map<std::string, std::string> counts;
  for (size_t i = 2; i < 8; ++i) counts[names[i]] = cells[i];
  CHECK(counts == std::map<std::string, std::string>{{"pending", "1"},
                                                     {"running", "1"},
                                                     {"paused", "2"},
                                                     {"completed", "1"},
                                                     {"stopped", "1"},
                                                     {"failed", "1"}});
}

TEST_CASE(
    "one line: C0, DEL, C1, bidi overrides and bytes outside UTF-8 are "
    "escaped",
    "[tuner][query]") {
  // A lone 0x9b (CSI to an 8-bit terminal), a cut sequence, an overlong
  // '/', a surrogate, past U+10FFFF; well-formed 2, 3 and 4 byte ones kept.
  CHECK(OneLine("a\x9b[2Jb") == "a\\x9b[2Jb");
  CHECK(OneLine("c\xe2\x82") == "c\\xe2\\x82");
  CHECK(OneLine("\xc0\xaf") == "\\xc0\\xaf");
  CHECK(OneLine("\xed\xa0\x80") == "\\xed\\xa0\\x80");
  CHECK(OneLine("\xf4\x90\x80\x80") == "\\xf4\\x90\\x80\\x80");
  CHECK(OneLine("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80") ==
        "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
  CHECK(core::HasControl("ok\x9b"));
  CHECK_FALSE(core::HasControl("caf\xc3\xa9"));
  CHECK(core::Printable("a\x9b", "", core::ControlShown::kReplaced) ==
        "a\xEF\xBF\xBD");
  CHECK(OneLine("a\nb\x1b[2J\x7f") == "a\\x0ab\\x1b[2J\\x7f");
  // U+009B (CSI, a one-byte escape on some terminals), U+202E (right-to-
  // left override), U+2066 (left-to-right isolate); other text untouched.
  CHECK(OneLine("a\xc2\x9b"
                "b\xe2\x80\xae"
                "c\xe2\x81\xa6"
                "d\xc3\xa9") == "a\\u009bb\\u202ec\\u2066d\xc3\xa9");
  // The marks that turn a line's direction: U+200F, U+200E, U+061C.
  CHECK(OneLine("a\xe2\x80\x8f"
                "b\xe2\x80\x8e"
                "c\xd8\x9c"
                "d") == "a\\u200fb\\u200ec\\u061cd");
}

}  // namespace
}  // namespace tuner

namespace tuner {
namespace {

// The output boundary of the query verbs: whatever the text holds, a table
// reaches stdout with its LFs and every other control escaped; CSV keeps
// TAB, CR and LF and shows the rest as U+FFFD.
TEST_CASE("a name typed by a user is quoted on one line, and in part if long",
          "[tuner][query]") {
  CHECK(core::QuotedInput("lr-sweep") == "'lr-sweep'");
  CHECK(core::QuotedInput("a\nb") == "'a\\x0ab'");
  CHECK(core::QuotedInput(std::string(129, 'x')) ==
        "'" + std::string(128, 'x') + "...' (129 bytes)");
  // Cut where a character starts: the euro sign (3 bytes) is not split.
  std::string euros = "ab";
  for (int i = 0; i < 60; ++i) euros += "\xe2\x82\xac";
  std::string quoted = core::QuotedInput(euros, 6);
  CHECK(quoted == "'ab\xe2\x82\xac...' (182 bytes)");
}

TEST_CASE("printable stream: escapes reach stdout only as text",
          "[tuner][query]") {
  std::ostringstream target;
  {
    PrintableStream out(target, "table");
    out << "name\x1b]0;HACKED\x07 ok\n"
        << "cr\rtab\t";
    // A C1 control written in two pieces is still seen whole.
    out << "c1 \xc2";
    out.flush();
    out << "\x9b"
        << "31m\n";
  }
  CHECK(target.str() ==
        "name\\x1b]0;HACKED\\x07 ok\ncr\\x0dtab\\x09c1 \\u009b31m\n");

  std::ostringstream csv;
  {
    PrintableStream out(csv, "csv");
    out << "a\tb,\"c\r\nd\"\x1b[2J\r\n";
  }
  CHECK(csv.str() == "a\tb,\"c\r\nd\"\xEF\xBF\xBD[2J\r\n");
  CHECK(PrintableFor("json", "{\"a\": \"\\u001b\"}\n") ==
        "{\"a\": \"\\u001b\"}\n");
}

TEST_CASE("printable stream: a failed write fails the stream",
          "[tuner][query]") {
  struct Refusing : std::streambuf {
    int_type overflow(int_type) override { return traits_type::eof(); }
    std::streamsize xsputn(const char*, std::streamsize) override { return 0; }
  } refusing;
  std::ostream closed(&refusing);
  PrintableStream out(closed, "table");
  out << "line\n";
  CHECK_FALSE(out.good());
}

}  // namespace
}  // namespace tuner
