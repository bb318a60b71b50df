// Progress as one line per event (logs, pipes, CI).
#ifndef TUNER_TUNER_TEXT_LINE_PROGRESS_H_
#define TUNER_TUNER_TEXT_LINE_PROGRESS_H_

#include <cstdio>
#include <string>

#include "tuner/sweep/progress.h"

namespace tuner {

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
  std::FILE* out_;
  std::string metric_;
  std::string time_attr_;
};

// "rung 3: rank 2 of 7, continue" for the last rung of a decision ("" if none).
std::string DescribeDecision(const core::Decision& decision);
// "12/32 started, 2 running, 1 completed, 8 stopped, 0 failed".
std::string DescribeCounts(const SweepCounts& c);

}  // namespace tuner

#endif  // TUNER_TUNER_TEXT_LINE_PROGRESS_H_
