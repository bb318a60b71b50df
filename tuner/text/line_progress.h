// Progress as one line per event (logs, pipes, CI, NO_COLOR, TERM=dumb), and
// the quiet display that only sums up.
#ifndef TUNER_TUNER_TEXT_LINE_PROGRESS_H_
#define TUNER_TUNER_TEXT_LINE_PROGRESS_H_

#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <string_view>

#include "tuner/sweep/progress.h"

namespace tuner {

// Writes `text` to `out` and flushes it, unless `*broken` says an earlier
// write failed; a failed write (EPIPE: `tuner run | head -1`) sets it. The
// progress is only a display: once the reader has gone, the sweep goes on
// to its end silently (SIGPIPE is ignored in main) and its results are in
// the database as always.
void WriteProgress(std::FILE* out, std::string_view text, bool* broken);

// One line when a trial starts, is promoted, and ends (completed, stopped,
// paused, failed: with its last report and why: the sweep's reason, else
// the last rung decision), and one when the sweep ends. Reports themselves
// print nothing: a trial that reports every second would bury the events.
// Writes no escape sequence; text from trials is shown with OneLine.
class LineProgress : public ProgressSink {
 public:
  LineProgress(std::FILE* out, std::string metric, std::string time_attr)
      : out_(out),
        metric_(std::move(metric)),
        time_attr_(std::move(time_attr)) {}

  void TrialStarted(const TrialEvent& event, const SweepCounts& c) override;
  void TrialReported(const TrialEvent& event, double time, double value,
                     const core::Decision& decision,
                     const SweepCounts& c) override;
  void TrialEnded(const TrialEvent& event, core::TrialStatus status,
                  const std::string& reason, const SweepCounts& c) override;
  void SweepEnded(const std::string& outcome, const SweepCounts& c) override;

 private:
  struct LastReport {
    std::string time = "-";
    std::string value = "-";
    std::string decision;  // the last rung decision, "" before one
  };
  void Print(const std::string& line);

  std::FILE* out_;
  bool broken_ = false;  // a write failed: print nothing more
  std::string metric_;
  std::string time_attr_;
  std::map<core::TrialId, LastReport> last_;  // trials that run or paused
  std::set<core::TrialId> paused_;            // to tell a promotion
};

// Only the line that sums the sweep up (`tuner run --quiet`); warnings and
// errors go to the logger, not here.
class QuietProgress : public ProgressSink {
 public:
  explicit QuietProgress(std::FILE* out) : out_(out) {}
  void TrialStarted(const TrialEvent&, const SweepCounts&) override {}
  void TrialReported(const TrialEvent&, double, double, const core::Decision&,
                     const SweepCounts&) override {}
  void TrialEnded(const TrialEvent&, core::TrialStatus, const std::string&,
                  const SweepCounts&) override {}
  void SweepEnded(const std::string& outcome, const SweepCounts& c) override;

 private:
  std::FILE* out_;
  bool broken_ = false;
};

// "rung 3: rank 2 of 7, continue" for the last rung of a decision ("" if none).
std::string DescribeDecision(const core::Decision& decision);
// "12/32 started, 2 running, 1 completed, 8 stopped, 0 failed".
std::string DescribeCounts(const SweepCounts& c);
// "sweep finished: 3 completed, 8 stopped early, 0 failed".
std::string DescribeOutcome(const std::string& outcome, const SweepCounts& c);

}  // namespace tuner

#endif  // TUNER_TUNER_TEXT_LINE_PROGRESS_H_
