#include "trial_runner/devices/device_detect.h"

#include <sched.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "trial_runner/devices/device_parsers.h"
#include "util/capture.h"

namespace tuner::runner {

namespace {

namespace fs = std::filesystem;

// nullopt: the tool is not installed; an error: it failed.
using Probe = std::optional<core::Result<Inventory>>;

core::Result<util::CaptureResult> RunTool(const std::vector<std::string>& argv,
                                          const DetectOptions& options) {
  auto run = util::RunCapture(argv, options.timeout);
  if (!run.ok()) return run;
  if (run.value().exit_code != 0) {
    return core::IoError(argv[0] + " exited with " +
                         std::to_string(run.value().exit_code));
  }
  return run;
}

Inventory Make(DeviceKind kind, std::vector<Device> devices,
               std::string source) {
  Inventory inventory;
  inventory.kind = kind;
  inventory.devices = std::move(devices);
  inventory.source = std::move(source);
  return inventory;
}

// /sys/class/accel/accelN/device/module_id, for a host without hl-smi.
std::vector<Device> AccelSysfs(const std::string& sysfs_root) {
  std::vector<Device> cards;
  std::error_code ec;
  fs::path dir = fs::path(sysfs_root) / "class/accel";
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    std::string name = entry.path().filename().string();
    if (!name.starts_with("accel") || name.starts_with("accel_")) continue;
    int module = -1;
    std::ifstream(entry.path() / "device/module_id") >> module;
    if (module < 0) continue;
    Device card;
    card.id = module;
    card.index = std::atoi(name.c_str() + 5);
    std::ifstream(entry.path() / "device/pci_addr") >> card.bus_id;
    cards.push_back(std::move(card));
  }
  std::sort(cards.begin(), cards.end(),
            [](const Device& a, const Device& b) { return a.id < b.id; });
  return cards;
}

Probe ProbeHabana(const DetectOptions& options) {
  auto run = RunTool(
      {"hl-smi", "-Q", kHlSmiFields, "--format=csv,noheader,nounits"}, options);
  if (run.ok()) {
    auto cards = ParseHlSmi(run.value().output, options.busy_memory_mib);
    if (!cards.ok()) return core::Result<Inventory>(cards.error());
    if (!cards.value().empty())
      return Make(DeviceKind::kHabana, std::move(cards).value(), "hl-smi");
  }
  auto cards = AccelSysfs(options.sysfs_root);
  if (!cards.empty()) {
    return Make(DeviceKind::kHabana, std::move(cards),
                options.sysfs_root + "/class/accel");
  }
  if (run.error().code == core::ErrorCode::kNotFound) return std::nullopt;
  return core::Result<Inventory>(run.error());
}

Probe ProbeNeuron(const DetectOptions& options) {
  auto run = RunTool({"neuron-ls", "--output-format", "json"}, options);
  if (!run.ok() && run.error().code == core::ErrorCode::kNotFound)
    return std::nullopt;
  std::string source = "neuron-ls --output-format json";
  if (!run.ok()) {  // a release before 2.34
    run = RunTool({"neuron-ls", "--json-output"}, options);
    source = "neuron-ls --json-output";
  }
  if (!run.ok()) return core::Result<Inventory>(run.error());
  auto cores = ParseNeuronLs(run.value().output);
  if (!cores.ok()) return core::Result<Inventory>(cores.error());
  return Make(DeviceKind::kNeuron, std::move(cores).value(), source);
}

Probe ProbeCuda(const DetectOptions& options) {
  auto run =
      RunTool({"nvidia-smi", std::string("--query-gpu=") + kNvidiaSmiFields,
               "--format=csv,noheader,nounits"},
              options);
  if (!run.ok() && run.error().code == core::ErrorCode::kNotFound)
    return std::nullopt;
  if (!run.ok()) return core::Result<Inventory>(run.error());
  auto gpus = ParseNvidiaSmi(run.value().output);
  if (!gpus.ok()) return core::Result<Inventory>(gpus.error());
  auto apps = RunTool({"nvidia-smi", "--query-compute-apps=pid,gpu_uuid",
                       "--format=csv,noheader"},
                      options);
  Inventory inventory =
      Make(DeviceKind::kCuda, std::move(gpus).value(), "nvidia-smi");
  if (apps.ok()) {
    MarkNvidiaBusy(apps.value().output, inventory.devices);
  } else {
    inventory.warnings.push_back("cannot list compute processes: " +
                                 apps.message());
  }
  return inventory;
}

Inventory CpuInventory() {
  std::vector<Device> cpus;
  for (int cpu : AllowedCpus()) {
    Device device;
    device.id = device.index = cpu;
    device.name = "cpu";
    cpus.push_back(device);
  }
  return Make(DeviceKind::kCpu, std::move(cpus), "sched_getaffinity");
}

Probe ProbeKind(DeviceKind kind, const DetectOptions& options) {
  switch (kind) {
    case DeviceKind::kHabana:
      return ProbeHabana(options);
    case DeviceKind::kNeuron:
      return ProbeNeuron(options);
    case DeviceKind::kCuda:
      return ProbeCuda(options);
    case DeviceKind::kCpu:
      break;
  }
  return CpuInventory();
}

}  // namespace

std::vector<int> AllowedCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
      if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  }
  if (cpus.empty()) cpus.push_back(0);
  return cpus;
}

core::Result<Inventory> DetectDevices(std::optional<DeviceKind> kind,
                                      const DetectOptions& options) {
  if (kind) {
    Probe found = ProbeKind(*kind, options);
    if (!found) {
      return core::NotFound(std::string("devices.kind is ") +
                            std::string(ToString(*kind)) +
                            " but its tool is not installed and nothing "
                            "was found");
    }
    if (found->ok() && found->value().devices.empty()) {
      return core::NotFound("no " + std::string(ToString(*kind)) +
                            " device found by " + found->value().source);
    }
    return *found;
  }
  std::vector<std::string> warnings;
  for (DeviceKind k :
       {DeviceKind::kHabana, DeviceKind::kNeuron, DeviceKind::kCuda}) {
    Probe found = ProbeKind(k, options);
    if (!found) continue;
    if (!found->ok()) {
      warnings.push_back(std::string(ToString(k)) + ": " + found->message());
      continue;
    }
    if (found->value().devices.empty()) continue;
    Inventory inventory = std::move(*found).value();
    inventory.warnings.insert(inventory.warnings.begin(), warnings.begin(),
                              warnings.end());
    return inventory;
  }
  Inventory cpus = CpuInventory();
  cpus.warnings = warnings;
  return cpus;
}

}  // namespace tuner::runner
