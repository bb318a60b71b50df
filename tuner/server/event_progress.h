// EventProgress: a sweep's progress as events on the service's EventBus.
#ifndef TUNER_TUNER_SERVER_EVENT_PROGRESS_H_
#define TUNER_TUNER_SERVER_EVENT_PROGRESS_H_

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "tuner/server/event_bus.h"
#include "tuner/sweep/progress.h"

namespace tuner::server {

// Events (data: JSON with "experiment" and "trial"):
//   trial_started   {attempt, params}
//   trial_promoted  {attempt}: a paused trial started again
//   trial_reported  {time, value, action, rungs: [{rung, milestone, verdict}]}
//   trial_completed | trial_stopped | trial_failed  {reason}
//   experiment_ended {outcome, counts}
// It also feeds the bus's ServiceMetrics: counts, the best value in `mode`,
// and how long each trial ran by `now` (pauses excluded; trials adopted
// from a previous tuner, whose start it did not see, are not timed).
class EventProgress : public ProgressSink {
 public:
  using Now = std::function<std::chrono::steady_clock::time_point()>;
  EventProgress(EventBus& bus, std::string experiment, core::Mode mode,
                Now now = std::chrono::steady_clock::now)
      : bus_(bus),
        experiment_(std::move(experiment)),
        mode_(mode),
        now_(std::move(now)) {}

  void TrialStarted(const TrialEvent& event, const SweepCounts& c) override;
  void TrialReported(const TrialEvent& event, double time, double value,
                     const core::Decision& decision,
                     const SweepCounts& c) override;
  void TrialEnded(const TrialEvent& event, core::TrialStatus status,
                  const std::string& reason, const SweepCounts& c) override;
  void SweepEnded(const std::string& outcome, const SweepCounts& c) override;

 private:
  // The seconds `trial` ran so far, if its start was seen; ends its current
  // run.
  std::optional<double> EndRun(core::TrialId trial);

  EventBus& bus_;
  std::string experiment_;
  core::Mode mode_;
  Now now_;
  std::set<core::TrialId> paused_;
  std::map<core::TrialId, std::chrono::steady_clock::time_point> run_start_;
  std::map<core::TrialId, double> ran_seconds_;  // runs before a pause
};

}  // namespace tuner::server

#endif  // TUNER_TUNER_SERVER_EVENT_PROGRESS_H_
