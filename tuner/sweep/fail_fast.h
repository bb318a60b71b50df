// FailFast: trial.fail_fast, a broken command or environment caught after
// its first few trials.
#ifndef TUNER_TUNER_SWEEP_FAIL_FAST_H_
#define TUNER_TUNER_SWEEP_FAIL_FAST_H_

#include <optional>
#include <string>

#include "core/trial.h"

namespace tuner {

// Watches the trials a sweep sees end (a resume's count afresh): once the
// first `n` all failed for one reason (the same class and last stderr
// line), says why the sweep fails; disarmed for good by the first trial
// that ended otherwise (completed, stopped, or failed another way), and
// once it has fired. n <= 0: never fires.
class FailFast {
 public:
  explicit FailFast(int n) : n_(n) {}

  // A trial ended with `status` and `reason`: the sweep's failure, the
  // moment the rule fires. Paused and pending ends are not ends.
  std::optional<std::string> Ended(core::TrialStatus status,
                                   const std::string& reason);

 private:
  enum class State { kWatching, kDisarmed };
  int n_;
  State state_ = State::kWatching;
  int count_ = 0;  // trials seen end, all failed with reason_
  std::string reason_;
};

}  // namespace tuner

#endif  // TUNER_TUNER_SWEEP_FAIL_FAST_H_
