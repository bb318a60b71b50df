// SlotPool: the concurrent trial slots of a CPU-only machine.
#ifndef TUNER_TRIAL_RUNNER_SLOT_POOL_H_
#define TUNER_TRIAL_RUNNER_SLOT_POOL_H_

#include <optional>
#include <vector>

#include "trial_runner/spawn.h"

namespace tuner::runner {

// What a trial gets from the pool: a slot and the env that goes with it.
struct SlotLease {
  int slot = 0;
  EnvVars env;
};

// `slots` interchangeable slots. Each lease's env caps the thread pools of
// common numeric libraries (OMP, OpenBLAS, MKL) at cpus / slots, so that
// concurrent trials do not oversubscribe the cores. Not thread-safe.
class SlotPool {
 public:
  SlotPool(int slots, int cpus);

  // The lowest free slot, or nullopt when all are leased.
  std::optional<SlotLease> Acquire();
  // REQUIRES: `slot` is leased.
  void Release(int slot);
  int size() const { return static_cast<int>(leased_.size()); }
  int free() const;

 private:
  std::vector<bool> leased_;
  int threads_per_slot_;
};

}  // namespace tuner::runner

#endif  // TUNER_TRIAL_RUNNER_SLOT_POOL_H_
