#include "tuner/cluster/slurm_placement.h"

#include <filesystem>
#include <utility>

#include "tuner/base/held_signals.h"

namespace tuner {

namespace {

namespace fs = std::filesystem;

// The allocation a Slurm sweep runs in: its stored one when it resumes
// (stored again if it had to be booked anew).
core::Result<SlurmAllocation> AcquireSlurm(
    const ExperimentConfig& config, storage::TrialStore& store,
    const storage::ExperimentRecord* resume, const std::string& job_name,
    const runner::KeepGoing& keep_going) {
  storage::ClusterJob stored;
  if (resume) {
    auto job = store.experiments().ClusterJobOf(resume->id);
    if (!job.ok()) return job.error();
    stored = job.value();
  }
  auto allocation = AcquireAllocation(config.cluster, stored.job, stored.booked,
                                      job_name, {}, keep_going);
  if (!allocation.ok()) return allocation.error();
  if (resume && allocation.value().job != stored.job) {
    TUNER_RETURN_IF_ERROR(store.experiments().SetClusterJob(
        resume->id, {allocation.value().job, allocation.value().booked}));
    TUNER_RETURN_IF_ERROR(store.Commit());
  }
  return allocation;
}

std::string SelfPath() {
  std::error_code ec;
  return fs::read_symlink("/proc/self/exe", ec).string();
}

}  // namespace

// The Slurm allocation and its nodes' devices, with Ctrl-C and SIGTERM held
// (a tuner killed while booking would leave the allocation to nobody): on
// one, what a new sweep booked is cancelled and `interrupted` set to it.
// Slurm's refusals are kUnavailable (runtime, not the config's fault).
core::Result<runner::DevicePool> SetUpSlurm(
    const ExperimentConfig& config, storage::TrialStore& store,
    const storage::ExperimentRecord* resume, const std::string& trials_root,
    std::optional<SlurmAllocation>& allocation, int& interrupted) {
  HeldSignals held;
  auto keep_going = [&held](const std::string&) { return !held.Pending(); };
  auto acquired =
      AcquireSlurm(config, store, resume,
                   AllocationName(config.name, trials_root), keep_going);
  interrupted = held.Pending();
  if (!acquired.ok()) return core::Unavailable("slurm: " + acquired.message());
  allocation = std::move(acquired).value();
  auto pool = SetUpClusterDevices(config.devices, *allocation, SelfPath(), {},
                                  keep_going);
  interrupted = held.Pending();
  if (interrupted && !resume) ReleaseAllocation(*allocation);
  return pool;
}

}  // namespace tuner
