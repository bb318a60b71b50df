// The environment that confines a trial to its leased devices.
#ifndef TUNER_TRIAL_RUNNER_DEVICES_DEVICE_ENV_H_
#define TUNER_TRIAL_RUNNER_DEVICES_DEVICE_ENV_H_

#include <set>
#include <string>

#include "core/result.h"
#include "trial_runner/devices/device_pool.h"
#include "trial_runner/processes/spawn.h"

namespace tuner::runner {

struct TrialDevices {
  std::string ids;         // "4,5": the {devices} placeholder
  int count = 0;           // {num_devices}
  int master_port = 0;     // {master_port}
  std::vector<int> ports;  // every port handed out (master, Neuron comm)
  EnvVars env;
};

struct DeviceEnvOptions {
  bool docker = false;       // habana: the container runtime partitions
  std::string trial_dir;     // habana: HABANA_LOGS goes below it
  std::string recipe_cache;  // habana: shared PT_HPU_RECIPE_CACHE_CONFIG
  int recipe_cache_mb = 10240;
  int threads = 1;  // unpinned trials: OMP_NUM_THREADS
};

// Per kind (see ../shared/docs/accelerators.md):
// - habana: 1 card: HLS_MODULE_ID=m and HABANA_VISIBLE_MODULES=m (the bridge
//   ignores the list alone at world size 1); k cards: HABANA_VISIBLE_MODULES
//   only, so that each rank maps its LOCAL_RANK. Under docker neither: the
//   container sees only its cards. HABANA_LOGS per trial.
// - neuron: NEURON_RT_VISIBLE_CORES=a-b, NEURON_RT_ROOT_COMM_ID on a port of
//   its own.
// - cuda: CUDA_VISIBLE_DEVICES by UUID (indices with CUDA_DEVICE_ORDER=
//   PCI_BUS_ID when no UUID is known).
// Every trial: MASTER_ADDR/MASTER_PORT (a free port, not in `taken`) and
// the same as PET_MASTER_ADDR/PET_MASTER_PORT (torchrun's defaults for
// --master_addr/--master_port), TUNER_DEVICES, and OMP/MKL/OpenBLAS
// threads = its pinned CPUs.
// Ports handed out are added to `taken`; the caller removes them when the
// trial ends.
core::Result<TrialDevices> DeviceEnvironment(const DeviceLease& lease,
                                             const DeviceEnvOptions& options,
                                             std::set<int>& taken);

// The card indices (not module ids) of a Gaudi lease: what docker's
// HABANA_VISIBLE_DEVICES takes.
std::string CardIndices(const DeviceLease& lease);

// A TCP port that is free on 127.0.0.1 now and not in `taken`.
core::Result<int> FreePort(const std::set<int>& taken);

}  // namespace tuner::runner

#endif  // TUNER_TRIAL_RUNNER_DEVICES_DEVICE_ENV_H_
