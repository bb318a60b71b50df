// FIFO: every trial runs to its end.
#ifndef TUNER_SCHEDULERS_FIFO_H_
#define TUNER_SCHEDULERS_FIFO_H_

#include <cstdint>
#include <optional>

#include "core/scheduler_spec.h"
#include "schedulers/trial_scheduler.h"

namespace tuner::schedulers {

// Never stops a trial early. With max_t set, a report at or past max_t
// completes the trial; without it, trials end when their process exits.
class FifoScheduler : public TrialScheduler {
 public:
  explicit FifoScheduler(const core::SchedulerSpec& spec)
      : max_t_(spec.max_t) {}

  int OnAdd(core::TrialId, int64_t) override { return 0; }
  core::Decision OnReport(core::TrialId trial, double time,
                          double value) override;
  void Restore(core::TrialId, const core::RungDecision&) override {}
  std::vector<double> Milestones() const override { return {}; }

 private:
  std::optional<double> max_t_;
};

}  // namespace tuner::schedulers

#endif  // TUNER_SCHEDULERS_FIFO_H_
