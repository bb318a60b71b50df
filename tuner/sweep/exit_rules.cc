#include "tuner/sweep/exit_rules.h"

#include <cstring>

#include "trial_runner/output/failure_class.h"
#include "trial_runner/output/failure_line.h"

namespace tuner {

namespace {

using core::TrialStatus;
using Kind = ExitRoute::Kind;
using Cause = runner::EndCause;

std::string DescribeExit(const runner::TrialExit& exit) {
  if (runner::StatusLost(exit.cause))
    return "exit status lost: " + exit.lost_why;
  if (exit.signal) {
    return "killed by signal " + std::to_string(exit.signal) + " (" +
           sigabbrev_np(exit.signal) + ")";
  }
  return "exit code " + std::to_string(exit.exit_code.value_or(-1));
}

// Whether a trial ended by itself with a non-zero exit code or a signal
// (not one the tuner sent it).
bool EndedBadly(const runner::TrialExit& exit) {
  if (exit.stop_requested || runner::StatusLost(exit.cause) ||
      exit.cause == runner::EndCause::kOrphaned) {
    return false;
  }
  return exit.signal != 0 || (exit.exit_code && *exit.exit_code != 0);
}

ExitRoute End(TrialStatus status, std::string reason = "") {
  return {Kind::kEnd, status, std::move(reason)};
}

std::string Seconds(std::chrono::milliseconds ms) {
  return core::FormatDouble(ms.count() / 1000.0) + " s";
}

}  // namespace

std::optional<std::string> ExitRules::Interruption(
    const ExitingTrial& trial, const runner::TrialExit& exit,
    bool sweep_stopping) const {
  if (sweep_stopping || !Undecided(trial.phase)) return std::nullopt;
  if (trial.phase == TrialPhase::kPreempting && exit.stop_requested) return "";
  if (trial.origin != AttemptOrigin::kEarlierTuner) return std::nullopt;
  if (exit.stop_requested) return "interrupted (a tuner stopped it)";
  if (runner::StatusLost(exit.cause))
    return "interrupted (exit status lost: " + exit.lost_why + ")";
  return std::nullopt;
}

ExitRoute ExitRules::Route(
    const ExitingTrial& trial, const runner::TrialExit& exit,
    bool sweep_stopping,
    const std::function<std::string()>& stderr_tail) const {
  if (auto why = Interruption(trial, exit, sweep_stopping))
    return {Kind::kRequeue, TrialStatus::kPending, *why};
  switch (trial.phase) {
    case TrialPhase::kStopping:
      return End(TrialStatus::kStopped, trial.verdict_reason);
    case TrialPhase::kCompleting:
      // Reported up to max_t: completed, unless it then failed by itself.
      // A retry would run the whole trial again: one that failed after
      // reporting to the end is not retried.
      if (!EndedBadly(exit)) return End(TrialStatus::kCompleted);
      return Failure(trial, exit, sweep_stopping, stderr_tail);
    case TrialPhase::kPausing:
      return {Kind::kPause, TrialStatus::kPaused, trial.verdict_reason};
    case TrialPhase::kResuming:
      return {Kind::kResume, TrialStatus::kPaused, trial.verdict_reason};
    default:
      return Failure(trial, exit, sweep_stopping, stderr_tail);
  }
}

ExitRoute ExitRules::Failure(
    const ExitingTrial& trial, const runner::TrialExit& exit,
    bool sweep_stopping,
    const std::function<std::string()>& stderr_tail) const {
  const bool completing = trial.phase == TrialPhase::kCompleting;
  if (sweep_stopping && !completing && exit.stop_requested)
    return End(TrialStatus::kPending, "interrupted");  // a resume reruns it
  const bool may_retry = !sweep_stopping && !completing;
  if (exit.cause == Cause::kNodeFailed &&
      trial.device_retries < kMaxDeviceRetries && may_retry) {
    return {Kind::kRetryElsewhere, TrialStatus::kPending, exit.lost_why};
  }
  if (exit.cause == Cause::kCancelled)  // someone meant it to end: no retry
    return End(TrialStatus::kFailed,
               "cancelled through Slurm: " + exit.lost_why);
  if (exit.cause == Cause::kTimedOut)
    return End(TrialStatus::kFailed,
               "timed out after " + Seconds(config_.trial.timeout));
  if (exit.cause == Cause::kIdle)
    return End(TrialStatus::kFailed,
               "no output for " + Seconds(config_.trial.idle_timeout));
  if (exit.cause == Cause::kOrphaned)
    return End(TrialStatus::kFailed, "stopped by its shim: no tuner for " +
                                         Seconds(config_.trial.orphan_timeout));
  if (exit.exit_code == 0) {
    if (trial.judged > 0) return End(TrialStatus::kCompleted);
    std::string reason =
        "exited 0 without reporting '" + config_.metric + "'" +
        (config_.time_attr == "report" ? ""
                                       : " with '" + config_.time_attr + "'");
    if (!trial.seen_keys.empty())
      reason += "; its reports had: " + trial.seen_keys;
    return End(TrialStatus::kFailed, reason);
  }
  return FailedItself(trial, exit, may_retry, stderr_tail);
}

ExitRoute ExitRules::FailedItself(
    const ExitingTrial& trial, const runner::TrialExit& exit, bool may_retry,
    const std::function<std::string()>& stderr_tail) const {
  std::string reason = DescribeExit(exit);
  std::string tail = stderr_tail();
  runner::Failure failure = runner::ClassifyFailure(tail);
  if (failure.kind == runner::FailureClass::kOther) {
    std::string line = runner::LastMeaningfulLine(tail);
    if (!line.empty()) reason += ": " + line;
  }
  if (failure.kind == runner::FailureClass::kOutOfMemory)  // would again
    return End(TrialStatus::kFailed,
               reason + ", out of memory: " + failure.line);
  if (failure.kind == runner::FailureClass::kDeviceAcquire &&
      trial.device_retries < kMaxDeviceRetries && may_retry) {
    return {Kind::kRetryElsewhere, TrialStatus::kPending,
            reason + ", device busy: " + failure.line};
  }
  if (trial.failures < config_.trial.max_failures && may_retry)
    return {Kind::kRetry, TrialStatus::kPending, reason};
  return End(TrialStatus::kFailed, reason);
}

}  // namespace tuner
