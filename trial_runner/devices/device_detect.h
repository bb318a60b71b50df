// Finding the machine's accelerators (or CPUs) and which are busy.
#ifndef TUNER_TRIAL_RUNNER_DEVICES_DEVICE_DETECT_H_
#define TUNER_TRIAL_RUNNER_DEVICES_DEVICE_DETECT_H_

#include <chrono>
#include <optional>
#include <string>

#include "core/result.h"
#include "trial_runner/devices/device.h"

namespace tuner::runner {

struct DetectOptions {
  std::string sysfs_root = "/sys";           // where /class/accel lives
  int64_t busy_memory_mib = 2048;            // Gaudi: more in use means busy
  std::chrono::milliseconds timeout{15000};  // per tool run
};

// The devices of `kind`, or with nullopt (auto) of the first kind found, in
// the order Gaudi (hl-smi, else sysfs module_id files), Neuron (neuron-ls in
// its new JSON form, else the old one), CUDA (nvidia-smi), else the CPUs
// this process may run on. Fails when an explicit kind has no device; with
// auto, a tool that fails is a warning in the inventory. Runs the tools:
// blocks for up to their timeout.
core::Result<Inventory> DetectDevices(std::optional<DeviceKind> kind,
                                      const DetectOptions& options);

// The CPUs this process may run on (sched_getaffinity), ascending.
std::vector<int> AllowedCpus();

}  // namespace tuner::runner

#endif  // TUNER_TRIAL_RUNNER_DEVICES_DEVICE_DETECT_H_
