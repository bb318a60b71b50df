#include "trial_runner/devices/device.h"

namespace tuner::runner {

std::string_view ToString(DeviceKind kind) {
  switch (kind) {
    case DeviceKind::kHabana:
      return "habana";
    case DeviceKind::kNeuron:
      return "neuron";
    case DeviceKind::kCuda:
      return "cuda";
    case DeviceKind::kCpu:
      break;
  }
  return "cpu";
}

std::optional<DeviceKind> ParseDeviceKind(std::string_view text) {
  for (DeviceKind kind : {DeviceKind::kCpu, DeviceKind::kHabana,
                          DeviceKind::kNeuron, DeviceKind::kCuda}) {
    if (text == ToString(kind)) return kind;
  }
  return std::nullopt;
}

std::string LockName(DeviceKind kind, const Device& device) {
  switch (kind) {
    case DeviceKind::kHabana:
      return "habana-module-" + std::to_string(device.id);
    case DeviceKind::kNeuron:
      return "neuron-core-" + std::to_string(device.id);
    case DeviceKind::kCuda:
      return device.uuid.empty() ? "cuda-" + std::to_string(device.id)
                                 : "cuda-" + device.uuid;
    case DeviceKind::kCpu:
      break;
  }
  return "cpu-" + std::to_string(device.id);
}

}  // namespace tuner::runner
