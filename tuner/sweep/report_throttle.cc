#include "tuner/sweep/report_throttle.h"

#include <algorithm>

namespace tuner {

void ReportThrottle::Refill(Clock::time_point now) {
  if (!started_) {
    started_ = true;
    last_ = now;
    return;
  }
  if (now <= last_) return;
  double seconds = std::chrono::duration<double>(now - last_).count();
  tokens_ = std::min(burst_, tokens_ + seconds * per_second_);
  last_ = now;
}

bool ReportThrottle::Admit(Clock::time_point now) {
  Refill(now);
  if (tokens_ < 1) return false;
  tokens_ -= 1;
  return true;
}

}  // namespace tuner
