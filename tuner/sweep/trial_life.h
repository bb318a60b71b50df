// TrialLife: where a trial the sweep has started and not ended is in its
// life, and the one place its phase changes.
#ifndef TUNER_TUNER_SWEEP_TRIAL_LIFE_H_
#define TUNER_TUNER_SWEEP_TRIAL_LIFE_H_

#include <string>

#include "core/trial.h"

namespace tuner {

// A live trial's phase. An ended trial (completed, stopped, failed, or
// pending again after an interrupted sweep) leaves the sweep.
//
//   kQueued ─Launched─▶ kRunning ─Decided─▶ kCompleting | kStopping |
//                          │                 kPausing ─Promote─▶ kResuming
//                       Preempt              kPausing ─StopPaused─▶ kStopping
//                          ▼                 kPausing ─exit: Paused─▶ kPaused
//                      kPreempting ─Decided─▶ (as from kRunning)
//   kPaused ─Promote─▶ kQueued
//   any phase with a process ─Requeue─▶ kQueued (a retry, a requeue, a
//   resume after a promotion, a relaunch on resume)
enum class TrialPhase {
  kQueued,      // no process: waits for a device (new, retried, promoted)
  kRunning,     // its attempt runs undecided: its reports are judged
  kPreempting,  // stopped for another experiment: queued again at its exit;
                // its reports are still judged until it exits
  kCompleting,  // reported max_t: given stop_grace to exit by itself
  kStopping,    // stopped (at a rung, or on its value): ends as stopped
  kPausing,     // paused at a rung: stopped once its checkpoint is in
  kResuming,    // promoted while pausing: runs again once it has exited
  kPaused,      // at a rung, no process: waits for a promotion
};

const char* ToString(TrialPhase phase);

// Whether a trial in `phase` has no verdict on its attempt yet: its
// reports are judged (running, or preempting until it exits).
inline bool Undecided(TrialPhase phase) {
  return phase == TrialPhase::kRunning || phase == TrialPhase::kPreempting;
}

// Who started the attempt that runs now.
enum class AttemptOrigin {
  kThisTuner,
  kEarlierTuner,  // adopted on resume: it may have ended while none ran
};

// A trial's phase with its transitions. A transition not drawn above
// throws std::logic_error naming both phases: the sweep's bug, which
// fails that sweep (Sweep::Guarded), never the process.
class TrialLife {
 public:
  TrialPhase phase() const { return phase_; }
  AttemptOrigin origin() const { return origin_; }

  // Whether its reports are judged (no verdict on this attempt yet).
  bool Undecided() const { return tuner::Undecided(phase_); }
  // The verdict its attempt was given (kContinue: none).
  core::Action Verdict() const;

  // kQueued → kRunning: an attempt started on a device.
  void Launched(AttemptOrigin origin);
  // kRunning or kPreempting → the verdict's phase (kComplete, kStop, kPause).
  void Decided(core::Action verdict);
  // kRunning → kPreempting.
  void Preempt();
  // kPausing → kResuming (its process still runs); kPaused → kQueued;
  // kQueued stays (it runs already again: relaunched on resume).
  void Promote();
  // kPausing or kResuming → kStopping: the scheduler ends it unpromoted.
  // Also from kRunning or kPreempting: a trial the scheduler holds paused
  // that runs again (its adoption failed on resume) is stopped.
  void StopPaused();
  // kPausing → kPaused: its paused attempt exited.
  void Paused();
  // Any phase but kPaused → kQueued: it runs again as a new attempt.
  void Requeue();
  // A trial rebuilt on resume: kQueued → `phase`, the attempt an earlier
  // tuner started and its stored verdict (kQueued, kRunning, kCompleting,
  // kStopping, kPausing, kResuming, kPaused).
  void Restore(TrialPhase phase);
  // Whether the restored attempt's process is to be adopted (not queued).
  void Adopted() { origin_ = AttemptOrigin::kEarlierTuner; }

 private:
  // Moves to `to` when the phase is one of `from`; else throws.
  void Move(std::initializer_list<TrialPhase> from, TrialPhase to,
            const char* transition);

  TrialPhase phase_ = TrialPhase::kQueued;
  AttemptOrigin origin_ = AttemptOrigin::kThisTuner;
};

}  // namespace tuner

#endif  // TUNER_TUNER_SWEEP_TRIAL_LIFE_H_
