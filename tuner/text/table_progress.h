// Progress on a terminal: ended trials scroll, running ones form a table.
#ifndef TUNER_TUNER_TEXT_TABLE_PROGRESS_H_
#define TUNER_TUNER_TEXT_TABLE_PROGRESS_H_

#include <chrono>
#include <cstdio>
#include <map>
#include <string>

#include "tuner/sweep/progress.h"

namespace tuner {

// Redraws a table of the running trials below the lines of ended ones,
// using ANSI cursor movement. Report redraws are throttled to 10 per second.
class TableProgress : public ProgressSink {
 public:
  TableProgress(std::FILE* out, std::string metric, std::string time_attr)
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
  struct Row {
    std::string params;
    std::string time = "-";
    std::string value = "-";
    std::string decision;
  };
  void Redraw(const SweepCounts& c, const std::string& permanent);

  std::FILE* out_;
  std::string metric_;
  std::string time_attr_;
  std::map<core::TrialId, Row> rows_;
  int drawn_lines_ = 0;
  std::chrono::steady_clock::time_point last_draw_{};
};

}  // namespace tuner

#endif  // TUNER_TUNER_TEXT_TABLE_PROGRESS_H_
