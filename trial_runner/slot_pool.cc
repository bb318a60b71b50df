#include "trial_runner/slot_pool.h"

#include <algorithm>
#include <string>

namespace tuner::runner {

SlotPool::SlotPool(int slots, int cpus)
    : leased_(static_cast<size_t>(std::max(1, slots)), false),
      threads_per_slot_(std::max(1, cpus / std::max(1, slots))) {}

std::optional<SlotLease> SlotPool::Acquire() {
  for (size_t i = 0; i < leased_.size(); ++i) {
    if (leased_[i]) continue;
    leased_[i] = true;
    std::string threads = std::to_string(threads_per_slot_);
    return SlotLease{static_cast<int>(i),
                     {{"TUNER_SLOT", std::to_string(i)},
                      {"OMP_NUM_THREADS", threads},
                      {"OPENBLAS_NUM_THREADS", threads},
                      {"MKL_NUM_THREADS", threads}}};
  }
  return std::nullopt;
}

void SlotPool::Release(int slot) {
  if (slot >= 0 && slot < size()) leased_[static_cast<size_t>(slot)] = false;
}

int SlotPool::free() const {
  return static_cast<int>(std::count(leased_.begin(), leased_.end(), false));
}

}  // namespace tuner::runner
