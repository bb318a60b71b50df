// ExitRules: what an attempt's exit makes of its trial (the verdict it was
// given, a stop the tuner asked for, the shim's timeouts, the exit code and
// what its stderr says), as a value the sweep acts on.
#ifndef TUNER_TUNER_SWEEP_EXIT_RULES_H_
#define TUNER_TUNER_SWEEP_EXIT_RULES_H_

#include <functional>
#include <optional>
#include <string>

#include "core/trial.h"
#include "trial_runner/trial_runner.h"
#include "tuner/config/experiment_config.h"
#include "tuner/sweep/trial_life.h"

namespace tuner {

// What the trial whose attempt exited knows about itself.
struct ExitingTrial {
  TrialPhase phase = TrialPhase::kRunning;
  AttemptOrigin origin = AttemptOrigin::kThisTuner;
  int failures = 0;            // failed attempts retried so far
  int device_retries = 0;      // attempts retried after a busy device or node
  int64_t judged = 0;          // reports judged, all attempts
  std::string verdict_reason;  // why it was stopped or paused
  std::string seen_keys;       // the metric names its reports had
};

// Where the trial goes from its exit.
struct ExitRoute {
  enum class Kind {
    kEnd,             // ends with `status` (kPending: the sweep is stopping)
    kPause,           // paused at its rung
    kResume,          // paused, then promoted meanwhile: runs again
    kRequeue,         // interrupted, not its fault: runs again, not counted
    kRetryElsewhere,  // its device or node was unusable: counted apart
    kRetry,           // failed: runs again, counted against max_failures
  };
  Kind kind = Kind::kEnd;
  core::TrialStatus status = core::TrialStatus::kFailed;  // for kEnd
  // Why it ended or runs again (stored, shown); for kRequeue the warning
  // to log ("" for a preemption).
  std::string reason;
};

class ExitRules {
 public:
  // An attempt is retried elsewhere at most this many times.
  static constexpr int kMaxDeviceRetries = 10;

  explicit ExitRules(const ExperimentConfig& config) : config_(config) {}

  // `sweep_stopping`: the sweep is being interrupted or failing, so nothing
  // runs again. `stderr_tail` reads the end of the attempt's stderr, called
  // only for an attempt that failed by itself.
  ExitRoute Route(const ExitingTrial& trial, const runner::TrialExit& exit,
                  bool sweep_stopping,
                  const std::function<std::string()>& stderr_tail) const;

 private:
  // Whether the attempt was interrupted rather than ended: it had no
  // verdict, was not at fault, and the sweep is not stopping. Interrupted
  // are an attempt preempted for another experiment, and one an earlier
  // tuner started that the stop of a tuner ended (its status says the stop
  // was asked for: Ctrl-C, `tuner stop`, a storage failure) or that left
  // no readable status (a full disk).
  std::optional<std::string> Interruption(const ExitingTrial& trial,
                                          const runner::TrialExit& exit,
                                          bool sweep_stopping) const;
  // An attempt that exited without a verdict, or that failed after it
  // reported up to max_t (then it is not retried: a retry would run the
  // whole trial again).
  ExitRoute Failure(const ExitingTrial& trial, const runner::TrialExit& exit,
                    bool sweep_stopping,
                    const std::function<std::string()>& stderr_tail) const;
  ExitRoute FailedItself(const ExitingTrial& trial,
                         const runner::TrialExit& exit, bool may_retry,
                         const std::function<std::string()>& stderr_tail) const;

  const ExperimentConfig& config_;
};

}  // namespace tuner

#endif  // TUNER_TUNER_SWEEP_EXIT_RULES_H_
