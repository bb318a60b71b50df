// The median stopping rule (Golovin et al., Vizier, 2017), judged per step
// as Optuna's MedianPruner does.
#ifndef TUNER_SCHEDULERS_MEDIAN_H_
#define TUNER_SCHEDULERS_MEDIAN_H_

#include <cstdint>
#include <map>
#include <optional>
#include <unordered_map>

#include "core/scheduler_spec.h"
#include "schedulers/ranked_rung.h"
#include "schedulers/trial_scheduler.h"

namespace tuner::schedulers {

// Checks sit at every multiple k * grace_period (k >= 1), below max_t when
// one is set. When a report reaches a check, the trial stops iff at least
// `min_samples` other trials have recorded a value there and its value is
// strictly worse than their median (the mean of the two middle values when
// their count is even); then its value is recorded there. A non-finite
// value stops the trial. A report that crosses several checks is judged at
// the highest. A report at or past max_t completes the trial. O(log n).
class MedianScheduler : public TrialScheduler {
 public:
  // REQUIRES: grace_period > 0, min_samples >= 1.
  explicit MedianScheduler(const core::SchedulerSpec& spec);

  int OnAdd(core::TrialId, int64_t) override { return 0; }
  core::Decision OnReport(core::TrialId trial, double time,
                          double value) override;
  void OnEnd(core::TrialId trial) override { next_check_.erase(trial); }
  void Restore(core::TrialId trial, const core::RungDecision& record) override;
  std::vector<double> Milestones() const override;

 private:
  double MedianOf(const RankedRung& rung) const;

  double interval_;
  std::optional<double> max_t_;
  int64_t min_samples_;
  core::Mode mode_;
  std::map<int64_t, RankedRung> checks_;                   // by k
  std::unordered_map<core::TrialId, int64_t> next_check_;  // absent = 1
};

}  // namespace tuner::schedulers

#endif  // TUNER_SCHEDULERS_MEDIAN_H_
