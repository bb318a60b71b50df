// The progress displays of `tuner run`: the live table (fitted to the
// terminal's width, redrawn without fragments), the line per event of a
// pipe, NO_COLOR and TERM=dumb, and --quiet. Events are fed by hand; the
// width and the clock are injected. No process.
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include <cctype>
#include <string>
#include <vector>

#include "tests/catch.h"
#include "tuner/base/clock.h"
#include "tuner/text/line_progress.h"
#include "tuner/text/table_progress.h"
#include "tuner/text/terminal.h"

namespace tuner::testing {
namespace {

// What a sink wrote, through a FILE* in memory.
class Captured {
 public:
  Captured() : file_(open_memstream(&buffer_, &size_)) {}
  ~Captured() {
    std::fclose(file_);
    std::free(buffer_);
  }
  std::FILE* file() { return file_; }
  // Everything written since the last call.
  std::string Take() {
    std::fflush(file_);
    std::string text(buffer_ + taken_, size_ - taken_);
    taken_ = size_;
    return text;
  }

 private:
  char* buffer_ = nullptr;
  size_t size_ = 0;
  size_t taken_ = 0;
  std::FILE* file_;
};

// A terminal `columns` wide that understands what TableProgress writes:
// text, "\n", ESC[nA (up), ESC[J (erase to the end) and ESC[...m (ignored).
// A line wider than the terminal wraps onto the next row, as on a real one.
class FakeTerminal {
 public:
  explicit FakeTerminal(int columns) : columns_(columns) {}

  void Write(const std::string& bytes) {
    for (size_t i = 0; i < bytes.size(); ++i) {
      if (bytes[i] == '\033') {
        i = Escape(bytes, i);
      } else if (bytes[i] == '\n') {
        ++row_;
        column_ = 0;
      } else {
        Put(bytes[i]);
      }
    }
    if (rows_.size() <= row_) rows_.resize(row_ + 1);
  }
  // The rows above the cursor (the cursor sits on an empty last row).
  std::vector<std::string> Screen() const {
    return {rows_.begin(), rows_.begin() + static_cast<long>(row_)};
  }
  bool wrapped() const { return wrapped_; }
  bool moved_above_top() const { return moved_above_top_; }

 private:
  size_t Escape(const std::string& bytes, size_t at) {
    size_t end = bytes.find_first_of("AJm", at);
    REQUIRE(end != std::string::npos);
    if (bytes[end] == 'A') {
      int up = std::stoi(bytes.substr(at + 2, end - at - 2));
      if (up > static_cast<int>(row_)) moved_above_top_ = true;
      row_ -= std::min<size_t>(row_, up);
    } else if (bytes[end] == 'J') {
      rows_.resize(row_ + 1);
      rows_[row_].resize(column_);
    }
    return end;
  }
  void Put(char c) {
    bool continuation = (static_cast<unsigned char>(c) & 0xc0) == 0x80;
    if (!continuation && column_ == columns_) {
      wrapped_ = true;
      ++row_;
      column_ = 0;
    }
    if (rows_.size() <= row_) rows_.resize(row_ + 1);
    rows_[row_] += c;
    if (!continuation) ++column_;
  }

  int columns_;
  std::vector<std::string> rows_;
  size_t row_ = 0;
  int column_ = 0;
  bool wrapped_ = false;
  bool moved_above_top_ = false;
};

const core::Params kParams = {
    {"learning_rate", core::ParamValue(0.0125)},
    {"optimizer", core::ParamValue(std::string("adamw"))},
    {"hidden", core::ParamValue(int64_t{512})},
    {"dropout", core::ParamValue(0.25)}};

core::Decision AtRung(double milestone, int64_t rank, int64_t n,
                      core::Action action) {
  core::RungVerdict verdict = action == core::Action::kStop
                                  ? core::RungVerdict::kStop
                                  : core::RungVerdict::kContinue;
  return {action, {{0, 0, milestone, 0.5, rank, n, verdict}}};
}

// Drives a table through a small sweep, checking the terminal after every
// event: no row wider than it, no move above the first row, and on screen
// exactly the ended trials' lines, then one table, then the counts.
void CheckTableOnTerminal(int columns) {
  Captured out;
  ManualClock clock;
  int width = columns;
  TableProgress table(
      out.file(), "validation_accuracy", "training_iteration",
      [&] { return width; }, clock);
  FakeTerminal terminal(columns);
  int ended = 0;
  SweepCounts c{0, 32};
  auto check = [&](int running) {
    terminal.Write(out.Take());
    INFO("at " << columns << " columns");
    REQUIRE_FALSE(terminal.wrapped());
    REQUIRE_FALSE(terminal.moved_above_top());
    auto screen = terminal.Screen();
    for (const auto& row : screen) CHECK(DisplayColumns(row) <= columns);
    size_t table_rows = running > 0 ? 1 + running : 0;
    REQUIRE(screen.size() == ended + table_rows + 1);
    for (int i = 0; i < ended; ++i) CHECK(screen[i].rfind("trial ", 0) == 0);
    if (running > 0) CHECK(screen[ended].rfind("trial  ", 0) == 0);
    for (int i = 1; i <= running; ++i) {
      std::string id = screen[ended + i].substr(0, 5);
      CHECK(id.find_first_not_of(' ') != std::string::npos);
      CHECK(std::isdigit(id.back()));
    }
    CHECK(screen.back() == FitColumns(DescribeCounts(c), columns));
  };
  for (core::TrialId id = 1; id <= 3; ++id) {
    ++c.started, ++c.running;
    table.TrialStarted({id, &kParams, 1}, c);
    check(static_cast<int>(id));
  }
  table.TrialReported({1, &kParams, 1}, 1, 0.625,
                      AtRung(1, 1, 1, core::Action::kContinue), c);
  check(3);
  clock.Advance(std::chrono::milliseconds(100));
  table.TrialReported({2, &kParams, 1}, 1, 0.5,
                      AtRung(1, 2, 2, core::Action::kStop), c);
  check(3);
  --c.running, ++c.stopped, ++ended;
  table.TrialEnded({2, &kParams, 1}, core::TrialStatus::kStopped,
                   "lost at rung 1 with a reason long enough to wrap a line",
                   c);
  check(2);
  --c.running, ++c.failed, ++ended;
  table.TrialEnded({3, &kParams, 1}, core::TrialStatus::kFailed, "", c);
  check(1);
  --c.running, ++c.completed, ++ended;
  table.TrialEnded({1, &kParams, 1}, core::TrialStatus::kCompleted, "", c);
  check(0);
}

TEST_CASE("progress: NO_COLOR and TERM=dumb turn every escape off",
          "[progress]") {
  CHECK(EscapesAllowed(nullptr, "xterm-256color"));
  CHECK(EscapesAllowed(nullptr, nullptr));
  CHECK(EscapesAllowed("", "xterm"));  // an empty NO_COLOR does not count
  CHECK_FALSE(EscapesAllowed("1", "xterm"));
  CHECK_FALSE(EscapesAllowed("no", "xterm"));
  CHECK_FALSE(EscapesAllowed(nullptr, "dumb"));

  using S = ProgressStyle;
  CHECK(ChooseProgressStyle(false, true, true) == S::kTable);
  CHECK(ChooseProgressStyle(false, true, false) == S::kLines);
  CHECK(ChooseProgressStyle(false, false, true) == S::kLines);
  CHECK(ChooseProgressStyle(true, true, true) == S::kQuiet);
  CHECK(ChooseProgressStyle(true, false, false) == S::kQuiet);
}

TEST_CASE("progress: a line is cut to the columns, never inside a character",
          "[progress]") {
  CHECK(FitColumns("short", 10) == "short");
  CHECK(FitColumns("exactly10!", 10) == "exactly10!");
  CHECK(FitColumns("one more col", 10) == "one mor...");
  CHECK(FitColumns("anything", 0) == "anything");  // width unknown
  CHECK(FitColumns("abcdef", 2) == "..");
  // Non-ASCII counts as two columns: a wide character never overflows.
  CHECK(DisplayColumns("\xc3\xa9t\xc3\xa9") == 5);
  CHECK(FitColumns("\xe5\xad\xa6\xe7\xbf\x92\xe7\x8e\x87x", 7) ==
        "\xe5\xad\xa6\xe7\xbf\x92\xe7\x8e\x87x");
  CHECK(FitColumns("\xe5\xad\xa6\xe7\xbf\x92\xe7\x8e\x87x", 6) ==
        "\xe5\xad\xa6...");
}

TEST_CASE("progress: the table fits 80 and 40 columns and leaves no fragment",
          "[progress]") {
  CheckTableOnTerminal(80);
  CheckTableOnTerminal(40);
  CheckTableOnTerminal(20);
}

TEST_CASE("progress: the table's exact text at 80 columns", "[progress]") {
  Captured out;
  ManualClock clock;
  TableProgress table(
      out.file(), "loss", "epoch", [] { return 80; }, clock);
  SweepCounts c{1, 8, 1};
  table.TrialStarted({7, &kParams, 1}, c);
  const std::string counts =
      "1/8 started, 1 running, 0 completed, 0 stopped, 0 failed\n";
  CHECK(out.Take() ==
        "\033[1mtrial  epoch  loss  last decision  params\033[0m\n"
        "    7      -     -" +
            std::string(17, ' ') +
            "learning_rate=0.0125 optimizer=adamw hidde...\n" + counts);
  clock.Advance(std::chrono::seconds(1));
  table.TrialReported({7, &kParams, 1}, 3, 0.25,
                      AtRung(3, 2, 5, core::Action::kContinue), c);
  CHECK(out.Take() ==
        "\033[3A\033[J"
        "\033[1mtrial  epoch  loss  last decision" +
            std::string(18, ' ') + "params\033[0m\n" +
            "    7      3  0.25  rung 3: rank 2 of 5, continue  "
            "learning_rate=0.0125 optim...\n" +
            counts);
  // Within 100 ms of the last redraw, a report only updates the row.
  table.TrialReported({7, &kParams, 1}, 4, 0.125, core::Decision{}, c);
  CHECK(out.Take().empty());
  c.running = 0, c.completed = 1;
  table.TrialEnded({7, &kParams, 1}, core::TrialStatus::kCompleted, "", c);
  CHECK(out.Take() ==
        "\033[3A\033[J"
        "trial    7 completed epoch=4 loss=0.125  learning_rate=0.0125 "
        "optimizer=adamw...\n"
        "1/8 started, 0 running, 1 completed, 0 stopped, 0 failed\n");
}

TEST_CASE("progress: a pipe gets one line per event, none per report",
          "[progress]") {
  Captured out;
  LineProgress lines(out.file(), "loss", "epoch");
  SweepCounts c{1, 4, 1};
  lines.TrialStarted({1, &kParams, 1}, c);
  for (int epoch = 1; epoch <= 50; ++epoch) {
    lines.TrialReported({1, &kParams, 1}, epoch, 1.0 / epoch, core::Decision{},
                        c);
  }
  lines.TrialReported({1, &kParams, 1}, 51, 0.5,
                      AtRung(51, 3, 3, core::Action::kPause), c);
  c.running = 0, c.paused = 1;
  lines.TrialEnded({1, &kParams, 1}, core::TrialStatus::kPaused, "", c);
  c.running = 1, c.paused = 0;
  lines.TrialStarted({1, &kParams, 2}, c);
  lines.TrialReported({1, &kParams, 2}, 52, 0.75,
                      AtRung(52, 4, 4, core::Action::kStop), c);
  c.running = 0, c.stopped = 1;
  lines.TrialEnded({1, &kParams, 2}, core::TrialStatus::kStopped,
                   "lost\033[31m at rung 52", c);
  lines.SweepEnded("finished", c);
  std::string text = out.Take();
  CHECK(text.find('\033') == std::string::npos);
  CHECK(text ==
        "trial 1 started: learning_rate=0.0125 optimizer=adamw hidden=512 "
        "dropout=0.25\n"
        "trial 1 paused: epoch=51 loss=0.5 (rung 51: rank 3 of 3, pause) "
        "[1/4 started, 0 running, 0 completed, 0 stopped, 0 failed]\n"
        "trial 1 promoted (attempt 2)\n"
        "trial 1 stopped: epoch=52 loss=0.75 (lost\\x1b[31m at rung 52) "
        "[1/4 started, 0 running, 0 completed, 1 stopped, 0 failed]\n"
        "sweep finished: 0 completed, 1 stopped early, 0 failed\n");
}

TEST_CASE(
    "progress: a paused trial that ends without running again ends with "
    "the report of its pause",
    "[progress]") {
  Captured out;
  LineProgress lines(out.file(), "loss", "epoch");
  SweepCounts c{1, 4, 1};
  lines.TrialStarted({1, &kParams, 1}, c);
  lines.TrialReported({1, &kParams, 1}, 3, 0.5,
                      AtRung(3, 2, 2, core::Action::kPause), c);
  lines.TrialEnded({1, &kParams, 1}, core::TrialStatus::kPaused, "", c);
  lines.TrialEnded({1, &kParams, 1}, core::TrialStatus::kStopped,
                   "paused at rung 3; not promoted", c);
  std::string text = out.Take();
  CHECK(text.find("trial 1 stopped: epoch=3 loss=0.5 (paused at rung 3; not "
                  "promoted)") != std::string::npos);

  Captured table_out;
  ManualClock clock;
  TableProgress table(
      table_out.file(), "loss", "epoch", [] { return 200; }, clock);
  table.TrialStarted({2, &kParams, 1}, c);
  table.TrialReported({2, &kParams, 1}, 3, 0.5,
                      AtRung(3, 2, 2, core::Action::kPause), c);
  table.TrialEnded({2, &kParams, 1}, core::TrialStatus::kPaused, "", c);
  table.TrialEnded({2, &kParams, 1}, core::TrialStatus::kStopped,
                   "not promoted", c);
  CHECK(table_out.Take().find("epoch=3 loss=0.5 (not promoted)") !=
        std::string::npos);
}

TEST_CASE("progress: --quiet prints the summary line only", "[progress]") {
  Captured out;
  QuietProgress quiet(out.file());
  SweepCounts c{1, 1, 1};
  quiet.TrialStarted({1, &kParams, 1}, c);
  quiet.TrialReported({1, &kParams, 1}, 1, 0.5,
                      AtRung(1, 1, 1, core::Action::kComplete), c);
  c.running = 0, c.completed = 1;
  quiet.TrialEnded({1, &kParams, 1}, core::TrialStatus::kCompleted, "", c);
  quiet.SweepEnded("finished", c);
  CHECK(out.Take() ==
        "sweep finished: 1 completed, 0 stopped early, 0 failed\n");
}

// A metric, time attribute, param or reason from a crafted database
// (`tuner resume`) passes through OneLine: the line display writes no ESC,
// BEL or C1 at all, the table none but its own cursor and bold sequences.
TEST_CASE("progress: names from the database never drive the terminal",
          "[progress]") {
  const std::string metric = "acc\x1b]0;HACKED\x07";
  const std::string time_attr =
      "ep\xc2\x9b"
      "31m";
  const core::Params params = {{"opt", std::string("a\x1b[2Jb")}};
  SweepCounts c{1, 0, 0};
  Captured lines_out;
  LineProgress lines(lines_out.file(), metric, time_attr);
  lines.TrialStarted({1, &params, 1}, c);
  lines.TrialReported({1, &params, 1}, 1, 0.5,
                      AtRung(1, 1, 1, core::Action::kComplete), c);
  lines.TrialEnded({1, &params, 1}, core::TrialStatus::kFailed,
                   "crashed\x1b[31m", c);
  std::string text = lines_out.Take();
  CHECK(text.find_first_of("\x1b\x07") == std::string::npos);
  CHECK(text.find("\xc2\x9b") == std::string::npos);
  CHECK(text.find("acc\\x1b]0;HACKED\\x07=0.5") != std::string::npos);

  Captured table_out;
  ManualClock clock;
  TableProgress table(
      table_out.file(), metric, time_attr, [] { return 120; }, clock);
  table.TrialStarted({1, &params, 1}, c);
  table.TrialEnded({1, &params, 1}, core::TrialStatus::kFailed,
                   "crashed\x1b[31m", c);
  std::string drawn = table_out.Take();
  CHECK(drawn.find('\x07') == std::string::npos);
  CHECK(drawn.find("\xc2\x9b") == std::string::npos);
  CHECK(drawn.find("\x1b]") == std::string::npos);
  CHECK(drawn.find("\x1b[2J") == std::string::npos);
  CHECK(drawn.find("\x1b[31m") == std::string::npos);
  CHECK(drawn.find("acc\\x1b]0;HACKED\\x07") != std::string::npos);
}

// Every display on a pipe whose reader has gone (`tuner run | head -1`,
// with SIGPIPE ignored as main does): each event returns, none throws,
// and after the first failed write nothing more is tried.
TEST_CASE("progress: a closed pipe stops the display, not the sweep",
          "[progress]") {
  struct sigaction ignore {
  }, saved{};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ignore, &saved);
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  close(fds[0]);
  std::FILE* out = fdopen(fds[1], "w");
  REQUIRE(out != nullptr);
  ManualClock clock;
  LineProgress lines(out, "loss", "epoch");
  QuietProgress quiet(out);
  TableProgress table(
      out, "loss", "epoch", [] { return 80; }, clock);
  std::vector<ProgressSink*> sinks = {&lines, &quiet, &table};
  SweepCounts c{1, 2, 1};
  for (ProgressSink* sink : sinks) {
    CHECK_NOTHROW(sink->TrialStarted({1, &kParams, 1}, c));
    CHECK_NOTHROW(sink->TrialReported(
        {1, &kParams, 1}, 1, 0.5, AtRung(1, 1, 1, core::Action::kComplete), c));
    CHECK_NOTHROW(sink->TrialEnded({1, &kParams, 1},
                                   core::TrialStatus::kCompleted, "", c));
    CHECK_NOTHROW(sink->SweepEnded("finished", c));
  }
  CHECK_FALSE(std::ferror(out));  // cleared: the error was seen and kept
  std::fclose(out);
  sigaction(SIGPIPE, &saved, nullptr);
}

}  // namespace
}  // namespace tuner::testing
