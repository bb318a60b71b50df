// A sweep on Slurm (docs/slurm.md): the allocation its trials run in, the
// devices of its nodes (detected on each node through Slurm), the runner.
#ifndef TUNER_TUNER_CLUSTER_SLURM_SETUP_H_
#define TUNER_TUNER_CLUSTER_SLURM_SETUP_H_

#include <string>
#include <vector>

#include "core/result.h"
#include "trial_runner/devices/device.h"
#include "trial_runner/devices/device_pool.h"
#include "trial_runner/slurm/slurm_runner.h"
#include "tuner/config/experiment_config.h"

namespace tuner {

struct SlurmAllocation {
  std::string job;
  bool booked = false;  // by this tuner (or the one it resumes): released
                        // at the sweep's end
  std::vector<std::string> nodes;
};

// The allocation to run in, first found of: `stored_job` (a resumed
// experiment's, if it still runs; one the tuner booked that is gone is
// booked again), cluster.job, $SLURM_JOB_ID; else books one with `salloc
// --no-shell` (cluster.nodes, partition, account, time, exclusive,
// salloc_args; --no-kill, so that a failed node does not end it). Fails
// with a message naming the job or salloc's error.
//
// A booking is named `job_name` (AllocationName); one of that name that
// a tuner killed while booking left is taken over (running) or cancelled
// first: the caller must hold the experiment's tuner lock. `keep_going`
// false (checked about once a second): the booking is given up and its
// job cancelled, and this fails with kCancelled.
core::Result<SlurmAllocation> AcquireAllocation(
    const ClusterSpec& spec, const std::string& stored_job, bool stored_booked,
    const std::string& job_name, const runner::SlurmCommands& commands = {},
    const runner::KeepGoing& keep_going = {});

// The Slurm job name of the allocations the tuner books for `experiment`:
// "tuner-NAME-" and a hash of its trials root (one per experiment and
// database).
std::string AllocationName(const std::string& experiment,
                           const std::string& trials_root);

// Ends a booked allocation (scancel JOB) and every step in it; nothing for
// one the tuner did not book.
void ReleaseAllocation(const SlurmAllocation& allocation,
                       const runner::SlurmCommands& commands = {});

// The devices of `json`, as `tuner devices --format json` prints them (a
// device in state "busy" keeps its detail as the reason).
core::Result<runner::Inventory> InventoryFromJson(const std::string& json);

// Runs `tuner devices --kind K --format json` on each node of `allocation`
// (a step each, `tuner` at `tuner_path` there too) and joins the nodes'
// pools (MakeNodePool); warnings are logged. Fails with kCancelled when
// `keep_going` says so before a node.
core::Result<runner::DevicePool> SetUpClusterDevices(
    const DevicesSpec& spec, const SlurmAllocation& allocation,
    const std::string& tuner_path, const runner::SlurmCommands& commands = {},
    const runner::KeepGoing& keep_going = {});

// The runner's options for `spec` in `allocation`.
runner::SlurmRunnerOptions SlurmRunnerOptionsFor(
    const ClusterSpec& spec, const SlurmAllocation& allocation,
    const std::string& shim_path);

}  // namespace tuner

#endif  // TUNER_TUNER_CLUSTER_SLURM_SETUP_H_
