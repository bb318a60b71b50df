#include "tuner/server/event_progress.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "tuner/text/trial_format.h"

namespace tuner::server {

namespace {

using Json = nlohmann::ordered_json;

// NaN and infinities are not JSON: null.
Json Number(double x) { return std::isfinite(x) ? Json(x) : Json(); }

Json Counts(const SweepCounts& c) {
  return {{"started", c.started},     {"total", c.total},
          {"running", c.running},     {"paused", c.paused},
          {"completed", c.completed}, {"stopped", c.stopped},
          {"failed", c.failed}};
}

}  // namespace

void EventProgress::TrialStarted(const TrialEvent& event, const SweepCounts&) {
  Json data = {{"experiment", experiment_},
               {"trial", event.trial},
               {"attempt", event.attempt}};
  if (paused_.erase(event.trial) > 0) {
    bus_.Publish("trial_promoted", data.dump());
    return;
  }
  if (event.params) data["params"] = ParamsObject(*event.params);
  bus_.Publish("trial_started", data.dump());
}

void EventProgress::TrialReported(const TrialEvent& event, double time,
                                  double value, const core::Decision& decision,
                                  const SweepCounts&) {
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
               {"time", Number(time)},
               {"value", Number(value)},
               {"action", std::string(core::ToString(decision.action))},
               {"rungs", rungs}};
  bus_.Publish("trial_reported", data.dump());
}

void EventProgress::TrialEnded(const TrialEvent& event,
                               core::TrialStatus status,
                               const std::string& reason, const SweepCounts&) {
  Json data = {{"experiment", experiment_},
               {"trial", event.trial},
               {"status", std::string(core::ToString(status))},
               {"reason", reason}};
  paused_.erase(event.trial);
  bus_.Publish("trial_" + std::string(core::ToString(status)), data.dump());
}

void EventProgress::SweepEnded(const std::string& outcome,
                               const SweepCounts& c) {
  Json data = {
      {"experiment", experiment_}, {"outcome", outcome}, {"counts", Counts(c)}};
  bus_.Publish("experiment_ended", data.dump());
}

}  // namespace tuner::server
