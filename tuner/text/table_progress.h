// Progress on a terminal: ended trials scroll, running ones form a table.
#ifndef TUNER_TUNER_TEXT_TABLE_PROGRESS_H_
#define TUNER_TUNER_TEXT_TABLE_PROGRESS_H_

#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "tuner/base/clock.h"
#include "tuner/sweep/progress.h"

namespace tuner {

// Redraws a table of the running trials below the lines of ended ones,
// using ANSI cursor movement and bold: only for a terminal that takes
// escapes (ChooseProgressStyle). Each redraw asks `columns` for the
// terminal's width (0: unknown, no limit) and fits every line to it:
// columns are dropped (the last decision, then params, then time) and what
// is still too wide is cut, so no line wraps and each redraw erases
// exactly the lines the previous one drew. Report redraws are throttled to
// 10 per second of `clock`.
class TableProgress : public ProgressSink {
 public:
  TableProgress(std::FILE* out, std::string metric, std::string time_attr,
                std::function<int()> columns, const Clock& clock)
      : out_(out),
        metric_(std::move(metric)),
        time_attr_(std::move(time_attr)),
        columns_(std::move(columns)),
        clock_(clock) {}

  void TrialStarted(const TrialEvent& event, const SweepCounts& c) override;
  void TrialReported(const TrialEvent& event, double time, double value,
                     const core::Decision& decision,
                     const SweepCounts& c) override;
  void TrialEnded(const TrialEvent& event, core::TrialStatus status,
                  const std::string& reason, const SweepCounts& c) override;
  void SweepEnded(const std::string& outcome, const SweepCounts& c) override;

 private:
  struct Row {
    std::string params;
    std::string time = "-";
    std::string value = "-";
    std::string decision;
  };
  // Erases what the last redraw drew, prints `permanent` (if any) to stay,
  // then the table and the counts.
  void Redraw(const SweepCounts& c, const std::string& permanent);
  std::vector<std::string> TableLines(int columns) const;

  std::FILE* out_;
  bool broken_ = false;  // a write failed (WriteProgress): draw no more
  std::string metric_;
  std::string time_attr_;
  std::function<int()> columns_;
  const Clock& clock_;
  std::map<core::TrialId, Row> rows_;  // trials that run
  // The rows of paused trials, kept for the line that ends one unpromoted.
  std::map<core::TrialId, Row> paused_rows_;
  int drawn_lines_ = 0;
  Clock::TimePoint last_draw_{};
};

}  // namespace tuner

#endif  // TUNER_TUNER_TEXT_TABLE_PROGRESS_H_
