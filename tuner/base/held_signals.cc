#include "tuner/base/held_signals.h"

#include <ctime>
#include <initializer_list>

namespace tuner {

HeldSignals::HeldSignals() {
  sigemptyset(&held_);
  for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&held_, s);
  pthread_sigmask(SIG_BLOCK, &held_, &before_);
}

HeldSignals::~HeldSignals() {
  Pending();
  timespec now{0, 0};
  while (sigtimedwait(&held_, nullptr, &now) > 0) {
  }
  pthread_sigmask(SIG_SETMASK, &before_, nullptr);
}

int HeldSignals::Pending() {
  if (seen_) return seen_;
  sigset_t pending;
  sigpending(&pending);
  for (int s : {SIGINT, SIGTERM, SIGHUP}) {
    if (sigismember(&pending, s)) return seen_ = s;
  }
  return 0;
}

}  // namespace tuner
