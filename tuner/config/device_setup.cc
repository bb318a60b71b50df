#include "tuner/config/device_setup.h"

#include <spdlog/spdlog.h>

#include <cstdlib>

namespace tuner {

namespace {

runner::PoolOptions CpuPoolOptions(const DevicesSpec& spec,
                                   const runner::Inventory& inventory) {
  runner::PoolOptions options;
  int cpus = static_cast<int>(inventory.devices.size());
  if (spec.slots > cpus || (!spec.pin_cpus && spec.kind == "cpu")) {
    options.shared_slots = spec.slots > 0 ? spec.slots : cpus;
    return options;
  }
  options.per_trial = spec.per_trial > 0 ? spec.per_trial
                      : spec.slots > 0   ? cpus / spec.slots
                                         : 1;
  options.max_groups = spec.slots;
  return options;
}

}  // namespace

core::Result<std::string> LockDir() {
  const char* env = std::getenv("TUNER_LOCK_DIR");
  if (!env || !*env) return std::string("/tmp/tuner-locks");
  if (env[0] != '/') {
    return core::InvalidArgument(
        std::string("$TUNER_LOCK_DIR: '") + env +
        "' is relative; give an absolute path (every tuner on the machine "
        "must name the same directory)");
  }
  return std::string(env);
}

runner::DetectOptions DetectOptionsFor(const DevicesSpec& spec) {
  runner::DetectOptions options;
  if (const char* root = std::getenv("TUNER_SYSFS_ROOT"); root && *root)
    options.sysfs_root = root;
  options.busy_memory_mib = spec.busy_memory_mib;
  return options;
}

std::optional<runner::DeviceKind> RequestedKind(const DevicesSpec& spec) {
  return runner::ParseDeviceKind(spec.kind);
}

namespace {

core::Result<runner::PoolOptions> PoolOptionsFor(
    const DevicesSpec& spec, const runner::Inventory& inventory) {
  runner::PoolOptions options;
  if (inventory.kind == runner::DeviceKind::kCpu) {
    options = CpuPoolOptions(spec, inventory);
  } else {
    if (spec.slots > 0) {
      spdlog::warn(
          "devices.slots is for kind cpu; {} trials get {} device(s) "
          "each",
          runner::ToString(inventory.kind), std::max(1, spec.per_trial));
    }
    options.per_trial = std::max(1, spec.per_trial);
    options.cpus = runner::AllowedCpus();
    options.pin_cpus = spec.pin_cpus;
  }
  options.ids = spec.ids;
  if (options.shared_slots == 0) {
    auto lock_dir = LockDir();
    if (!lock_dir.ok()) return lock_dir.error();
    options.lock_dir = lock_dir.value();
  }
  return options;
}

}  // namespace

core::Result<runner::DevicePool> MakeDevicePool(
    const DevicesSpec& spec, const runner::Inventory& inventory,
    const std::string& /*workdir*/) {
  auto options = PoolOptionsFor(spec, inventory);
  if (!options.ok()) return options.error();
  return runner::DevicePool::Create(inventory, options.value());
}

core::Result<runner::DevicePool> MakeNodePool(
    const DevicesSpec& spec, const runner::Inventory& inventory,
    const std::string& node) {
  auto options = PoolOptionsFor(spec, inventory);
  if (!options.ok()) return options.error();
  options.value().node = node;
  options.value().pin_cpus = false;  // the node's CPUs are not this one's
  options.value().cpus.clear();
  return runner::DevicePool::Create(inventory, options.value());
}

core::Result<runner::DevicePool> SetUpDevices(const DevicesSpec& spec,
                                              const std::string& workdir) {
  auto inventory =
      runner::DetectDevices(RequestedKind(spec), DetectOptionsFor(spec));
  if (!inventory.ok()) return core::NotFound("devices: " + inventory.message());
  for (const auto& warning : inventory.value().warnings)
    spdlog::warn("devices: {}", warning);
  auto pool = MakeDevicePool(spec, inventory.value(), workdir);
  if (!pool.ok()) return core::InvalidArgument("devices: " + pool.message());
  for (const auto& warning : pool.value().warnings())
    spdlog::warn("devices: {}", warning);
  spdlog::info("devices: {} (from {})", pool.value().Describe(),
               inventory.value().source);
  return pool;
}

}  // namespace tuner
