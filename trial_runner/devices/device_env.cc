#include "trial_runner/devices/device_env.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "trial_runner/devices/device_parsers.h"

namespace tuner::runner {

namespace {

std::string Join(const std::vector<int>& ids) {
  std::string out;
  for (int id : ids) out += (out.empty() ? "" : ",") + std::to_string(id);
  return out;
}

void AddHabana(const DeviceLease& lease, const DeviceEnvOptions& options,
               EnvVars& env) {
  std::string modules = Join(lease.ids());
  if (!options.docker) {
    if (lease.devices.size() == 1) env.emplace_back("HLS_MODULE_ID", modules);
    env.emplace_back("HABANA_VISIBLE_MODULES", modules);
  }
  if (!options.trial_dir.empty())
    env.emplace_back("HABANA_LOGS", options.trial_dir + "/habana_logs");
  if (!options.recipe_cache.empty()) {
    // delete=false: other trials may be reading the cache right now.
    env.emplace_back("PT_HPU_RECIPE_CACHE_CONFIG",
                     options.recipe_cache + ",false," +
                         std::to_string(options.recipe_cache_mb));
  }
}

core::Status AddNeuron(const DeviceLease& lease, std::set<int>& taken,
                       TrialDevices& out) {
  EnvVars& env = out.env;
  std::vector<int> ids = lease.ids();
  std::string range = std::to_string(ids.front());
  if (ids.size() > 1) range += "-" + std::to_string(ids.back());
  env.emplace_back("NEURON_RT_VISIBLE_CORES", range);
  auto port = FreePort(taken);
  if (!port.ok()) return port.status();
  taken.insert(port.value());
  out.ports.push_back(port.value());
  env.emplace_back("NEURON_RT_ROOT_COMM_ID",
                   "localhost:" + std::to_string(port.value()));
  return core::Status::Ok();
}

void AddCuda(const DeviceLease& lease, EnvVars& env) {
  bool uuids = std::all_of(lease.devices.begin(), lease.devices.end(),
                           [](const Device& d) { return !d.uuid.empty(); });
  std::string list;
  for (const auto& d : lease.devices) {
    list +=
        (list.empty() ? "" : ",") + (uuids ? d.uuid : std::to_string(d.index));
  }
  if (!uuids) env.emplace_back("CUDA_DEVICE_ORDER", "PCI_BUS_ID");
  env.emplace_back("CUDA_VISIBLE_DEVICES", list);
}

}  // namespace

std::string CardIndices(const DeviceLease& lease) {
  std::vector<int> indices;
  for (const auto& d : lease.devices) indices.push_back(d.index);
  return Join(indices);
}

core::Result<int> FreePort(const std::set<int>& taken) {
  for (int attempt = 0; attempt < 64; ++attempt) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return core::IoError(std::string("socket: ") + strerror(errno));
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t size = sizeof address;
    int port = -1;
    if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
        getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size) == 0) {
      port = ntohs(address.sin_port);
    }
    close(fd);
    if (port > 0 && !taken.count(port)) return port;
  }
  return core::IoError("no free TCP port found on 127.0.0.1");
}

core::Result<TrialDevices> DeviceEnvironment(const DeviceLease& lease,
                                             const DeviceEnvOptions& options,
                                             std::set<int>& taken) {
  TrialDevices out;
  out.ids = Join(lease.ids());
  out.count = static_cast<int>(lease.devices.size());
  auto port = FreePort(taken);
  if (!port.ok()) return port.error();
  out.master_port = port.value();
  taken.insert(out.master_port);
  out.ports.push_back(out.master_port);
  EnvVars& env = out.env;
  switch (lease.kind) {
    case DeviceKind::kHabana:
      AddHabana(lease, options, env);
      break;
    case DeviceKind::kNeuron:
      if (auto s = AddNeuron(lease, taken, out); !s.ok()) return s.error();
      break;
    case DeviceKind::kCuda:
      AddCuda(lease, env);
      break;
    case DeviceKind::kCpu:
      break;
  }
  // torchrun (and accelerate launch, through torchrun's parser) ignores
  // MASTER_PORT and reads --master_port's default from PET_MASTER_PORT:
  // without it, every trial's agent would bind 29500.
  for (const char* prefix : {"", "PET_"}) {
    env.emplace_back(std::string(prefix) + "MASTER_ADDR", "127.0.0.1");
    env.emplace_back(std::string(prefix) + "MASTER_PORT",
                     std::to_string(out.master_port));
  }
  env.emplace_back("TUNER_DEVICES", out.ids);
  env.emplace_back("TUNER_SLOT", std::to_string(lease.group));
  if (!lease.cpus.empty())
    env.emplace_back("TUNER_CPUS", FormatCpuList(lease.cpus));
  std::string threads =
      std::to_string(lease.cpus.empty() ? std::max(1, options.threads)
                                        : static_cast<int>(lease.cpus.size()));
  for (const char* name :
       {"OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"}) {
    env.emplace_back(name, threads);
  }
  return out;
}

}  // namespace tuner::runner
