// What a failed trial's last output says about why it failed.
#ifndef TUNER_TRIAL_RUNNER_OUTPUT_FAILURE_CLASS_H_
#define TUNER_TRIAL_RUNNER_OUTPUT_FAILURE_CLASS_H_

#include <string>
#include <string_view>

namespace tuner::runner {

enum class FailureClass {
  kOther,          // retried up to trial.max_failures
  kDeviceAcquire,  // its device was busy: retried elsewhere, not counted
  kOutOfMemory,    // failed: a retry would fail the same way
};

struct Failure {
  FailureClass kind = FailureClass::kOther;
  std::string line;  // the line that said so (PrintableLine), for the reason
};

// Classifies by the messages the stacks print (accelerators.md §1.6, §2.5,
// §3): "synStatus=8 [Device not found] Device acquire failed",
// "nrt_allocate_neuron_cores ... not available", "all CUDA-capable devices
// are busy or unavailable"; "CUDA out of memory", "OutOfMemoryError",
// "Allocation failed", "MemoryError". The last matching line wins.
Failure ClassifyFailure(std::string_view output);

// The last `bytes` of the file at `path` ("" when it cannot be read).
std::string FileTail(const std::string& path, size_t bytes);

}  // namespace tuner::runner

#endif  // TUNER_TRIAL_RUNNER_OUTPUT_FAILURE_CLASS_H_
