// Ctrl-C and SIGTERM held back while the process does something that must
// not be cut short by the default action (booking a Slurm allocation: a
// tuner killed there would leave the allocation to nobody).
#ifndef TUNER_TUNER_BASE_HELD_SIGNALS_H_
#define TUNER_TUNER_BASE_HELD_SIGNALS_H_

#include <signal.h>

namespace tuner {

// Blocks SIGINT, SIGTERM and SIGHUP in the calling thread while it lives;
// Pending() tells whether one arrived, so that the work can stop cleanly.
// On destruction the signals that arrived are consumed (not delivered) and
// the mask is restored: the caller acts on Pending() instead. Not for
// threads other than the one that made it.
class HeldSignals {
 public:
  HeldSignals();
  ~HeldSignals();
  HeldSignals(const HeldSignals&) = delete;
  HeldSignals& operator=(const HeldSignals&) = delete;

  // The first held signal that arrived (SIGINT, SIGTERM, SIGHUP), or 0.
  int Pending();

 private:
  sigset_t held_;
  sigset_t before_;
  int seen_ = 0;
};

}  // namespace tuner

#endif  // TUNER_TUNER_BASE_HELD_SIGNALS_H_
