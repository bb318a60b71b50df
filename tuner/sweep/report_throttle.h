// ReportThrottle: how many of a trial's reports a sweep stores per second.
#ifndef TUNER_TUNER_SWEEP_REPORT_THROTTLE_H_
#define TUNER_TUNER_SWEEP_REPORT_THROTTLE_H_

#include <chrono>

namespace tuner {

// A token bucket per trial: `burst` reports may be stored at once, then
// `per_second` on average. The sweep withholds a report it refuses, unless
// the scheduler took a decision on it (a rung, max_t, a stop), and stores
// the newest withheld ones when the trial ends (docs/crash-safety.md,
// "A trial that floods its reports"). Pure: the caller gives the time, so
// tests need no clock. Not thread-safe.
class ReportThrottle {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr double kPerSecond = 50;
  static constexpr double kBurst = 500;

  explicit ReportThrottle(double per_second = kPerSecond, double burst = kBurst)
      : per_second_(per_second), burst_(burst), tokens_(burst) {}

  // Takes a token, if one is left at `now`: whether a report arriving then
  // may be stored. Times before an earlier call's count as that time.
  bool Admit(Clock::time_point now);

 private:
  void Refill(Clock::time_point now);

  double per_second_;
  double burst_;
  double tokens_;
  Clock::time_point last_{};
  bool started_ = false;
};

}  // namespace tuner

#endif  // TUNER_TUNER_SWEEP_REPORT_THROTTLE_H_
