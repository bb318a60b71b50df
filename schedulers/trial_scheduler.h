// TrialScheduler: judges trial reports (continue, stop, complete).
#ifndef TUNER_SCHEDULERS_TRIAL_SCHEDULER_H_
#define TUNER_SCHEDULERS_TRIAL_SCHEDULER_H_

#include <vector>

#include "tuner/core/trial.h"

namespace tuner::schedulers {

// A synchronous state machine: reports in, decisions out. Deterministic: the
// same sequence of calls gives the same decisions. No I/O, no clock. Its
// whole state is the rung records it returned, so a caller that stored them
// can rebuild it with Restore(). Not thread-safe.
class TrialScheduler {
 public:
  virtual ~TrialScheduler() = default;
  TrialScheduler() = default;
  TrialScheduler(const TrialScheduler&) = delete;
  TrialScheduler& operator=(const TrialScheduler&) = delete;

  // Judges a report of `trial` that reached resource `time` (in time_attr
  // units) with objective `value` (as reported; mode is the scheduler's).
  // Reports of one trial must come with increasing `time`. After kStop or
  // kComplete the caller sends no more reports of that trial.
  virtual core::Decision OnReport(core::TrialId trial, double time,
                                  double value) = 0;

  // Re-enters one rung record returned earlier by OnReport (for resume).
  // Records must be restored in the order they were returned.
  virtual void Restore(core::TrialId trial,
                       const core::RungDecision& record) = 0;

  // The rung milestones, lowest first (empty for schedulers without rungs).
  virtual std::vector<double> Milestones() const = 0;
};

}  // namespace tuner::schedulers

#endif  // TUNER_SCHEDULERS_TRIAL_SCHEDULER_H_
