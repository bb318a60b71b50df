#include "tuner/sweep/fail_fast.h"

namespace tuner {

std::optional<std::string> FailFast::Ended(core::TrialStatus status,
                                           const std::string& reason) {
  using core::TrialStatus;
  bool ended = status == TrialStatus::kCompleted ||
               status == TrialStatus::kStopped ||
               status == TrialStatus::kFailed;
  if (n_ <= 0 || state_ == State::kDisarmed || !ended) return std::nullopt;
  if (status != TrialStatus::kFailed || (count_ > 0 && reason != reason_)) {
    state_ = State::kDisarmed;
    return std::nullopt;
  }
  reason_ = reason;
  if (++count_ < n_) return std::nullopt;
  state_ = State::kDisarmed;
  return "fail_fast: the first " + std::to_string(n_) +
         " trials all failed the same way (" + reason +
         "); nothing more is launched (trial.fail_fast in docs/config.md)";
}

}  // namespace tuner
