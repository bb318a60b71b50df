// From a config's `devices` section to a DevicePool: detection, the busy
// check, the lock directory.
#ifndef TUNER_TUNER_CONFIG_DEVICE_SETUP_H_
#define TUNER_TUNER_CONFIG_DEVICE_SETUP_H_

#include <optional>
#include <string>

#include "core/result.h"
#include "trial_runner/devices/device_detect.h"
#include "trial_runner/devices/device_pool.h"
#include "tuner/config/experiment_config.h"

namespace tuner {

// The lock directory of the whole machine: $TUNER_LOCK_DIR, else
// /tmp/tuner-locks. The only place that decides it (no config key does):
// every tuner on the machine must agree on it, or two of them could lease
// the same device. A relative $TUNER_LOCK_DIR is refused: it would name
// another directory in each working directory.
core::Result<std::string> LockDir();

// Detection settings; $TUNER_SYSFS_ROOT replaces /sys (tests, containers).
runner::DetectOptions DetectOptionsFor(const DevicesSpec& spec);

// nullopt for kind auto.
std::optional<runner::DeviceKind> RequestedKind(const DevicesSpec& spec);

// The pool the config describes on `inventory`. For kind cpu: `slots`
// trials (or one per `per_trial` CPUs; default one per CPU), each pinned to
// its own CPUs and leased across processes; more slots than CPUs (or
// pin_cpus: false) gives unpinned slots that share the CPUs. Leases live in
// LockDir(); `workdir` is unused since no config key names a lock
// directory (kept so that callers need not change).
core::Result<runner::DevicePool> MakeDevicePool(
    const DevicesSpec& spec, const runner::Inventory& inventory,
    const std::string& workdir);

// The pool of a cluster node's `inventory` (detected there): as
// MakeDevicePool, its leases naming `node`, no CPU pinning (the node's
// CPUs are not this machine's).
core::Result<runner::DevicePool> MakeNodePool(
    const DevicesSpec& spec, const runner::Inventory& inventory,
    const std::string& node);

// Detects the devices and makes the pool; warnings are logged.
core::Result<runner::DevicePool> SetUpDevices(const DevicesSpec& spec,
                                              const std::string& workdir);

}  // namespace tuner

#endif  // TUNER_TUNER_CONFIG_DEVICE_SETUP_H_
