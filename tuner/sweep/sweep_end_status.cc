// How an attempt's exit becomes the trial's status: the verdict it was
// given, a stop the tuner asked for, the shim's timeouts, the exit code and
// what its stderr says (out of memory, a busy device, the last line).
#include <cstring>

#include "trial_runner/failure_class.h"
#include "trial_runner/failure_line.h"
#include "tuner/sweep/sweep.h"
#include "tuner/sweep/sweep_live_trial.h"

namespace tuner {

namespace {

std::string DescribeExit(const runner::TrialExit& exit) {
  if (exit.lost) return "exit status lost: " + exit.lost_why;
  if (exit.signal) {
    return "killed by signal " + std::to_string(exit.signal) + " (" +
           sigabbrev_np(exit.signal) + ")";
  }
  return "exit code " + std::to_string(exit.exit_code.value_or(-1));
}

// Whether a trial ended by itself with a non-zero exit code or a signal
// (not one the tuner sent it).
bool FailedItself(const runner::TrialExit& exit) {
  if (exit.stop_requested || exit.lost || exit.orphaned) return false;
  return exit.signal != 0 || (exit.exit_code && *exit.exit_code != 0);
}

}  // namespace

std::optional<std::string> Sweep::Interruption(
    const LiveTrial& trial, const runner::TrialExit& exit) const {
  if (interrupting_ || trial.verdict != core::Action::kContinue)
    return std::nullopt;
  if (trial.preempted && exit.stop_requested) return "";
  if (!trial.adopted) return std::nullopt;
  if (exit.stop_requested) return "interrupted (a tuner stopped it)";
  if (exit.lost) return "interrupted (exit status lost: " + exit.lost_why + ")";
  return std::nullopt;
}

std::optional<core::TrialStatus> Sweep::EndStatus(LiveTrial& trial,
                                                  const runner::TrialExit& exit,
                                                  std::string& reason) const {
  using core::TrialStatus;
  if (trial.verdict == core::Action::kStop) {
    reason = trial.reason;
    return TrialStatus::kStopped;
  }
  // Reported up to max_t: completed, unless it then failed by itself.
  const bool complete = trial.verdict == core::Action::kComplete;
  if (complete && !FailedItself(exit)) return TrialStatus::kCompleted;
  // A retry would run the whole trial again: one that reported to the end
  // and failed afterwards is not retried.
  const bool may_retry = !interrupting_ && !complete;
  if (trial.verdict == core::Action::kPause) {
    reason = trial.reason;
    return TrialStatus::kPaused;
  }
  if (interrupting_ && exit.stop_requested) {
    reason = "interrupted";  // a later resume runs it again
    return TrialStatus::kPending;
  }
  if (exit.node_failed && trial.device_retries < kMaxDeviceRetries &&
      may_retry) {
    reason = exit.lost_why;
    trial.device_busy = true;  // on another node, not counted
    return std::nullopt;
  }
  if (exit.cancelled) {
    reason = "cancelled through Slurm: " + exit.lost_why;
    return TrialStatus::kFailed;  // someone meant it to end: no retry
  }
  if (exit.timed_out) {
    reason = "timed out after " +
             core::FormatDouble(config_.trial.timeout.count() / 1000.0) + " s";
    return TrialStatus::kFailed;
  }
  if (exit.idle) {
    reason = "no output for " +
             core::FormatDouble(config_.trial.idle_timeout.count() / 1000.0) +
             " s";
    return TrialStatus::kFailed;
  }
  if (exit.orphaned) {
    reason = "stopped by its shim: no tuner for " +
             core::FormatDouble(config_.trial.orphan_timeout.count() / 1000.0) +
             " s";
    return TrialStatus::kFailed;
  }
  if (exit.exit_code == 0) {
    if (trial.judged > 0) return TrialStatus::kCompleted;
    reason =
        "exited 0 without reporting '" + config_.metric + "'" +
        (config_.time_attr == "report" ? ""
                                       : " with '" + config_.time_attr + "'");
    if (!trial.seen_keys.empty())
      reason += "; its reports had: " + trial.seen_keys.Text();
    return TrialStatus::kFailed;
  }
  reason = DescribeExit(exit);
  std::string dir = TrialDir(trial.id);
  std::string tail = runner::FileTail(dir + "/stderr.log", 65536);
  runner::Failure failure = runner::ClassifyFailure(tail);
  if (failure.kind == runner::FailureClass::kOther) {
    std::string line = runner::LastMeaningfulLine(tail);
    if (!line.empty()) reason += ": " + line;
  }
  if (failure.kind == runner::FailureClass::kOutOfMemory) {
    reason += ", out of memory: " + failure.line;
    return TrialStatus::kFailed;  // a retry would run out the same way
  }
  if (failure.kind == runner::FailureClass::kDeviceAcquire &&
      trial.device_retries < kMaxDeviceRetries && may_retry) {
    reason += ", device busy: " + failure.line;
    trial.device_busy = true;
    return std::nullopt;  // elsewhere, not counted against max_failures
  }
  if (trial.failures < config_.trial.max_failures && may_retry) {
    return std::nullopt;  // retry
  }
  return TrialStatus::kFailed;
}

}  // namespace tuner
