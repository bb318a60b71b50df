#include "tuner/sweep/trial_life.h"

#include <algorithm>
#include <stdexcept>

namespace tuner {

const char* ToString(TrialPhase phase) {
  switch (phase) {
    case TrialPhase::kQueued:
      return "queued";
    case TrialPhase::kRunning:
      return "running";
    case TrialPhase::kPreempting:
      return "preempting";
    case TrialPhase::kCompleting:
      return "completing";
    case TrialPhase::kStopping:
      return "stopping";
    case TrialPhase::kPausing:
      return "pausing";
    case TrialPhase::kResuming:
      return "resuming";
    case TrialPhase::kPaused:
      return "paused";
  }
  return "unknown";
}

core::Action TrialLife::Verdict() const {
  switch (phase_) {
    case TrialPhase::kCompleting:
      return core::Action::kComplete;
    case TrialPhase::kStopping:
      return core::Action::kStop;
    case TrialPhase::kPausing:
    case TrialPhase::kResuming:
    case TrialPhase::kPaused:
      return core::Action::kPause;
    default:
      return core::Action::kContinue;
  }
}

void TrialLife::Move(std::initializer_list<TrialPhase> from, TrialPhase to,
                     const char* transition) {
  if (std::find(from.begin(), from.end(), phase_) == from.end()) {
    throw std::logic_error(std::string("a trial ") + ToString(phase_) +
                           " cannot be " + transition);
  }
  phase_ = to;
}

void TrialLife::Launched(AttemptOrigin origin) {
  Move({TrialPhase::kQueued}, TrialPhase::kRunning, "launched");
  origin_ = origin;
}

void TrialLife::Decided(core::Action verdict) {
  TrialPhase to = verdict == core::Action::kComplete ? TrialPhase::kCompleting
                  : verdict == core::Action::kStop   ? TrialPhase::kStopping
                  : verdict == core::Action::kPause  ? TrialPhase::kPausing
                                                     : phase_;
  Move({TrialPhase::kRunning, TrialPhase::kPreempting}, to, "decided");
}

void TrialLife::Preempt() {
  Move({TrialPhase::kRunning}, TrialPhase::kPreempting, "preempted");
}

void TrialLife::Promote() {
  if (phase_ == TrialPhase::kPaused || phase_ == TrialPhase::kQueued) {
    phase_ = TrialPhase::kQueued;
    return;
  }
  Move({TrialPhase::kPausing}, TrialPhase::kResuming, "promoted");
}

void TrialLife::StopPaused() {
  Move({TrialPhase::kPausing, TrialPhase::kResuming, TrialPhase::kRunning,
        TrialPhase::kPreempting},
       TrialPhase::kStopping, "stopped at its rung");
}

void TrialLife::Paused() {
  Move({TrialPhase::kPausing}, TrialPhase::kPaused, "paused");
}

void TrialLife::Requeue() {
  Move({TrialPhase::kQueued, TrialPhase::kRunning, TrialPhase::kPreempting,
        TrialPhase::kCompleting, TrialPhase::kStopping, TrialPhase::kPausing,
        TrialPhase::kResuming},
       TrialPhase::kQueued, "queued again");
  origin_ = AttemptOrigin::kThisTuner;
}

void TrialLife::Restore(TrialPhase phase) {
  Move({TrialPhase::kQueued}, phase, "restored");
}

}  // namespace tuner
