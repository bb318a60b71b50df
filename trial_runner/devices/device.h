// Devices: the cards, cores or CPUs the tuner hands out to trials.
#ifndef TUNER_TRIAL_RUNNER_DEVICES_DEVICE_H_
#define TUNER_TRIAL_RUNNER_DEVICES_DEVICE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tuner::runner {

enum class DeviceKind { kCpu, kHabana, kNeuron, kCuda };

std::string_view ToString(DeviceKind kind);
// "cpu", "habana", "neuron", "cuda"; nullopt for anything else.
std::optional<DeviceKind> ParseDeviceKind(std::string_view text);

// One unit a trial can lease. `id` is what trials are told: the module id
// of a Gaudi card (not its index), a NeuronCore index, a GPU's nvidia-smi
// index, a CPU number.
struct Device {
  int id = 0;
  int index = -1;      // habana: N of /dev/accel/accelN; neuron: its chip
  std::string uuid;    // cuda: GPU-…; habana: the card's uuid when known
  std::string name;    // HL-205, A100-SXM4-40GB, Trainium, …
  std::string bus_id;  // PCI address when known
  int64_t memory_total_mib = -1;  // -1: unknown
  int64_t memory_used_mib = -1;
  std::string busy;  // non-empty: in use by a process that is no trial of
                     // a tuner's (why, for the warning)
};

// What detection found on this machine.
struct Inventory {
  DeviceKind kind = DeviceKind::kCpu;
  std::vector<Device> devices;  // sorted by id
  std::string source;           // the tool or file it came from
  std::vector<std::string> warnings;
};

// The name of the lock file that leases `device` (see DeviceLocks): unique
// per physical unit and stable across reboots where the hardware allows
// (module ids, GPU UUIDs).
std::string LockName(DeviceKind kind, const Device& device);

}  // namespace tuner::runner

#endif  // TUNER_TRIAL_RUNNER_DEVICES_DEVICE_H_
