// EventProgress: a sweep's progress as events on the service's EventBus.
#ifndef TUNER_TUNER_SERVER_EVENT_PROGRESS_H_
#define TUNER_TUNER_SERVER_EVENT_PROGRESS_H_

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
class EventProgress : public ProgressSink {
 public:
  EventProgress(EventBus& bus, std::string experiment)
      : bus_(bus), experiment_(std::move(experiment)) {}

  void TrialStarted(const TrialEvent& event, const SweepCounts& c) override;
  void TrialReported(const TrialEvent& event, double time, double value,
                     const core::Decision& decision,
                     const SweepCounts& c) override;
  void TrialEnded(const TrialEvent& event, core::TrialStatus status,
                  const std::string& reason, const SweepCounts& c) override;
  void SweepEnded(const std::string& outcome, const SweepCounts& c) override;

 private:
  EventBus& bus_;
  std::string experiment_;
  std::set<core::TrialId> paused_;
};

}  // namespace tuner::server

#endif  // TUNER_TUNER_SERVER_EVENT_PROGRESS_H_
