// The parts of Sweep that take an attempt's exit: its devices given back,
// then where ExitRules route the trial (relaunched, paused, ended) followed.
#include <spdlog/spdlog.h>

#include "trial_runner/output/failure_class.h"
#include "tuner/sweep/sweep.h"
#include "tuner/sweep/sweep_live_trial.h"

namespace tuner {

void Sweep::HandleExit(core::TrialId id, const runner::TrialExit& exit) {
  auto it = live_.find(id);
  if (it == live_.end()) return;
  LiveTrial& trial = *it->second;
  StoreWithheld(trial);
  checkpoints_.Exited(id);
  journal_.SetShim(id, std::nullopt, std::nullopt);
  --counts_.running;
  if (exit.exit_code) trial.exit_code = *exit.exit_code;
  if (exit.signal) trial.exit_code = -exit.signal;
  trial.exited_at = trial.life.origin() == AttemptOrigin::kEarlierTuner
                        ? exit.ended_at
                        : std::nullopt;
  ExitRoute route = RouteExit(trial, exit);
  // A device that its stack found busy rests a while before its next trial.
  ReleaseDevices(trial, route.kind == ExitRoute::Kind::kRetryElsewhere
                            ? kBusyDeviceRest
                            : std::chrono::milliseconds(0));
  FollowRoute(id, route);
  promotions_.EndStopped();
  FillSlots();
  CheckDone();
}

ExitRoute Sweep::RouteExit(const LiveTrial& trial,
                           const runner::TrialExit& exit) const {
  ExitingTrial facts;
  facts.phase = trial.life.phase();
  facts.origin = trial.life.origin();
  facts.failures = trial.failures;
  facts.device_retries = trial.device_retries;
  facts.judged = trial.judged;
  facts.verdict_reason = trial.reason;
  facts.seen_keys = trial.intake.seen_keys().Text();
  std::string stderr_path = planner_.TrialDir(trial.id) + "/stderr.log";
  return exit_rules_.Route(facts, exit, !Running(), [&stderr_path] {
    return runner::FileTail(stderr_path, 65536);
  });
}

void Sweep::FollowRoute(core::TrialId id, const ExitRoute& route) {
  auto it = live_.find(id);
  LiveTrial& trial = *it->second;
  using Kind = ExitRoute::Kind;
  switch (route.kind) {
    case Kind::kRequeue:
      if (!route.reason.empty())
        spdlog::warn("trial {}: {}; relaunching it", id, route.reason);
      return Relaunch(trial);  // from its newest checkpoint, if it has some
    case Kind::kRetryElsewhere:
      ++trial.device_retries;
      RecordRetries(trial);
      spdlog::warn(
          "trial {} could not use its device or node ({}); retrying on "
          "another",
          id, route.reason);
      return Relaunch(trial);
    case Kind::kRetry:
      ++trial.failures;
      RecordRetries(trial);
      spdlog::warn("trial {} failed ({}); retrying (attempt {} of {})", id,
                   route.reason, trial.failures + 1,
                   config_.trial.max_failures + 1);
      return Relaunch(trial);
    case Kind::kResume:
      return Relaunch(trial);
    case Kind::kPause: {
      auto owned = std::move(it->second);
      live_.erase(it);
      return promotions_.Pause(std::move(owned));
    }
    case Kind::kEnd:
      if (trial.life.Undecided()) scheduler_->OnEnd(id);
      Finish(trial, route.status, route.reason);
      live_.erase(it);
      return;
  }
}

void Sweep::RecordRetries(const LiveTrial& trial) {
  journal_.SetRetries(trial.id, {trial.failures, trial.device_retries});
}

void Sweep::Relaunch(LiveTrial& trial) {
  planner_.RotateLogs(trial.id, trial.attempt);
  trial.life.Requeue();
  trial.intake.NewAttempt(trial.last_time);
  trial.reason.clear();
  trial.stop_time.reset();
  StartOrQueue(trial);
}

}  // namespace tuner
