// A sweep's placement on Slurm, as `tuner run` and `tuner resume` set it up:
// the allocation (the experiment's stored one on a resume, else found or
// booked, and stored with the experiment), its nodes' devices as one pool,
// and the allocation's release when the sweep is over.
#ifndef TUNER_TUNER_CLUSTER_SLURM_PLACEMENT_H_
#define TUNER_TUNER_CLUSTER_SLURM_PLACEMENT_H_

#include <optional>
#include <string>

#include "core/result.h"
#include "storage/trial_store.h"
#include "trial_runner/devices/device_pool.h"
#include "tuner/cluster/slurm_setup.h"
#include "tuner/config/experiment_config.h"

namespace tuner {

// Releases a booked allocation when the sweep is over, unless `keep` (its
// trials were left running for a later resume).
struct AllocationRelease {
  explicit AllocationRelease(const std::optional<SlurmAllocation>& a)
      : allocation(a) {}
  ~AllocationRelease() {
    if (allocation && !keep) ReleaseAllocation(*allocation);
  }
  const std::optional<SlurmAllocation>& allocation;
  bool keep = false;
};

// The Slurm allocation and its nodes' devices, with Ctrl-C and SIGTERM held
// (a tuner killed while booking would leave the allocation to nobody): on
// one, what a new sweep booked is cancelled and `interrupted` set to it.
// Slurm's refusals are kUnavailable (runtime, not the config's fault).
core::Result<runner::DevicePool> SetUpSlurm(
    const ExperimentConfig& config, storage::TrialStore& store,
    const storage::ExperimentRecord* resume, const std::string& trials_root,
    std::optional<SlurmAllocation>& allocation, int& interrupted);

}  // namespace tuner

#endif  // TUNER_TUNER_CLUSTER_SLURM_PLACEMENT_H_
