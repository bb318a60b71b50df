#include "tuner/server/event_progress.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "tuner/text/number_text.h"
#include "tuner/text/trial_format.h"

namespace tuner::server {

namespace {

using Json = nlohmann::ordered_json;

Json Counts(const SweepCounts& c) {
  return {{"started", c.started},     {"total", c.total},
          {"running", c.running},     {"paused", c.paused},
          {"completed", c.completed}, {"stopped", c.stopped},
          {"failed", c.failed}};
}

}  // namespace

std::optional<double> EventProgress::EndRun(core::TrialId trial) {
  auto start = run_start_.find(trial);
  if (start == run_start_.end()) return std::nullopt;
  std::chrono::duration<double> ran = now_() - start->second;
  run_start_.erase(start);
  return ran_seconds_[trial] += ran.count();
}

void EventProgress::TrialStarted(const TrialEvent& event,
                                 const SweepCounts& c) {
  Json data = {{"experiment", experiment_},
               {"trial", event.trial},
               {"attempt", event.attempt}};
  run_start_[event.trial] = now_();
  bool promoted = paused_.erase(event.trial) > 0;
  bus_.metrics().TrialStarted(experiment_, promoted, c);
  if (promoted) {
    bus_.Publish("trial_promoted", data.dump());
    return;
  }
  if (event.params) data["params"] = ParamsObject(*event.params);
  bus_.Publish("trial_started", data.dump());
}

void EventProgress::TrialReported(const TrialEvent& event, double time,
                                  double value, const core::Decision& decision,
                                  const SweepCounts& c) {
  bus_.metrics().TrialReported(experiment_, value, mode_, decision, c);
  Json rungs = Json::array();
  for (const auto& r : decision.rungs) {
    rungs.push_back({{"bracket", r.bracket},
                     {"rung", r.rung},
                     {"milestone", r.milestone},
                     {"rank", r.rank},
                     {"n", r.n},
                     {"verdict", std::string(core::ToString(r.verdict))}});
  }
  if (decision.action == core::Action::kPause) paused_.insert(event.trial);
  Json data = {{"experiment", experiment_},
               {"trial", event.trial},
               {"time", JsonNumber(time)},
               {"value", JsonNumber(value)},
               {"action", std::string(core::ToString(decision.action))},
               {"rungs", rungs}};
  bus_.Publish("trial_reported", data.dump());
}

void EventProgress::TrialEnded(const TrialEvent& event,
                               core::TrialStatus status,
                               const std::string& reason,
                               const SweepCounts& c) {
  std::optional<double> seconds = EndRun(event.trial);
  if (status != core::TrialStatus::kPaused) ran_seconds_.erase(event.trial);
  bus_.metrics().TrialEnded(experiment_, status, seconds, c);
  Json data = {{"experiment", experiment_},
               {"trial", event.trial},
               {"status", std::string(core::ToString(status))},
               {"reason", reason}};
  // A paused trial ends its run here; its next start is a promotion.
  if (status != core::TrialStatus::kPaused) paused_.erase(event.trial);
  bus_.Publish("trial_" + std::string(core::ToString(status)), data.dump());
}

void EventProgress::SweepEnded(const std::string& outcome,
                               const SweepCounts& c) {
  bus_.metrics().SweepEnded(experiment_, c);
  Json data = {
      {"experiment", experiment_}, {"outcome", outcome}, {"counts", Counts(c)}};
  bus_.Publish("experiment_ended", data.dump());
}

}  // namespace tuner::server
