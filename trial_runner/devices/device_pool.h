// DevicePool: hands out disjoint groups of devices to trials, leased across
// processes by DeviceLocks-style flock files.
#ifndef TUNER_TRIAL_RUNNER_DEVICES_DEVICE_POOL_H_
#define TUNER_TRIAL_RUNNER_DEVICES_DEVICE_POOL_H_

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "trial_runner/devices/device.h"
#include "trial_runner/devices/device_locks.h"

namespace tuner::runner {

struct PoolOptions {
  int per_trial = 1;      // devices per trial (cpu kind: CPUs per trial)
  std::vector<int> ids;   // restrict the pool to these ids; empty: all
  std::string lock_dir;   // empty: no cross-process leases
  std::vector<int> cpus;  // the machine's CPUs, shared out by device
  bool pin_cpus = true;   // pin each group to its share of `cpus`
  int shared_slots = 0;   // cpu kind, more slots than CPUs: unpinned
                          // slots that share the CPUs, no leases
  int max_groups = 0;     // at most this many groups; 0: all that fit
  // A cluster node's pool ("" = this machine): its leases name the node,
  // and its lock files live in lock_dir/nodes/<node>/ (one name per node,
  // [A-Za-z0-9._-]: device 0 of two nodes are two devices).
  std::string node;
};

// One group of devices held by one trial. Move-only: its locks are held
// until it is destroyed (and until every process that inherited them dies).
struct DeviceLease {
  int group = -1;
  DeviceKind kind = DeviceKind::kCpu;
  std::vector<Device> devices;
  std::vector<int> cpus;  // the CPUs to pin to; empty: not pinned
  std::vector<util::LockFile> locks;
  std::string node;  // the cluster node of its devices; "": this machine

  std::vector<int> ids() const;
  std::vector<int> lock_fds() const;
  // Records who holds the lease in its lock files (for `tuner devices`).
  void Label(const std::string& owner);
};

// The groups: Gaudi cards in aligned module groups of 1, 2, 4 or 8
// ({0,1},{2,3},… / {0-3},{4-7}); NeuronCores in aligned contiguous ranges;
// GPUs and CPUs in consecutive runs. Fixed groups mean one pool never
// fragments. Across processes, a pool whose trials need more than one device
// reserves the group it waits for (one `.reserve` lock per device), and
// every pool skips devices another process has reserved, so a stream of
// 1-card trials cannot starve a 4-card trial. Not thread-safe.
class DevicePool {
 public:
  // Fails when no group fits (wrong per_trial, too few free devices).
  // Busy devices (inventory's `busy`) are left out, with a warning, unless
  // their lease is held in `lock_dir` (by this or another tuner's trial:
  // the usage is a trial's, and the device is ours again when it ends; for
  // Neuron, a lease on any core of the busy chip).
  static core::Result<DevicePool> Create(const Inventory& inventory,
                                         const PoolOptions& options);
  // One pool of the groups of several nodes' pools (each made by Create
  // with its `node`), in their order; they must hold one device kind and
  // one group size.
  static core::Result<DevicePool> Join(std::vector<DevicePool> pools);

  // A free group whose locks this process could take; nullopt when every
  // group is in use here or held (or reserved) by another process.
  std::optional<DeviceLease> TryAcquire();
  // Marks the group made of exactly `ids` as leased here without taking its
  // locks: a trial adopted from a previous tuner holds them (through its
  // shim) until it ends. nullopt when no free group has those ids.
  std::optional<DeviceLease> Adopt(const std::vector<int>& ids,
                                   const std::string& node = "");
  // A node that failed or drains gets no new leases until it is usable
  // again; leases held there stay until released.
  void SetNodeUsable(const std::string& node, bool usable);
  // Whether some group's node is usable (SetNodeUsable).
  bool AnyNodeUsable() const;
  // The nodes of its groups, in order ("" for this machine's pool).
  std::vector<std::string> nodes() const;
  // The group may be handed out again (its locks close with the lease),
  // after `rest` (a device its stack reported busy).
  void Release(DeviceLease lease,
               std::chrono::milliseconds rest = std::chrono::milliseconds(0));
  // Drops a reservation made while waiting (nothing more to start).
  void StopWaiting();

  size_t groups() const { return groups_.size(); }
  size_t free() const;  // groups not leased by this pool
  // Devices in each group (CPUs for the cpu kind).
  int group_size() const {
    return groups_.empty() ? 0 : static_cast<int>(groups_[0].devices.size());
  }
  // The devices of the group reserved while waiting (a TryAcquire that
  // found it held elsewhere); empty: none.
  std::vector<int> reserved_ids() const;
  // Whether the last TryAcquire found free groups held by other processes.
  bool contended() const { return contended_; }
  DeviceKind kind() const { return kind_; }
  const std::vector<std::string>& warnings() const { return warnings_; }
  std::string Describe() const;  // "8 habana devices in 4 groups of 2"

 private:
  struct Group {
    std::vector<Device> devices;
    std::vector<int> cpus;
    bool leased = false;
    std::chrono::steady_clock::time_point rest_until{};
    std::string node;
  };
  DevicePool() = default;
  // Creates the lock directory if missing; an error if it or a lock file
  // of the pool's devices is unsafe to use (device_locks.h).
  core::Status CheckLocks() const;
  std::string LockPath(const std::string& node, const Device& device,
                       const char* suffix) const;
  std::string LockDirOf(const std::string& node) const;
  // Whether `device`'s lease (for Neuron: one on its chip) is held.
  bool LeaseHeld(const Inventory& inventory, const Device& device) const;
  bool ReservedByOthers(const Group& group) const;
  bool NodeUsable(const std::string& node) const;
  std::optional<std::vector<util::LockFile>> LockGroup(const Group& group,
                                                       size_t& held_elsewhere);
  void Reserve(size_t group);

  DeviceKind kind_ = DeviceKind::kCpu;
  PoolOptions options_;
  std::vector<Group> groups_;
  std::vector<std::string> warnings_;
  bool contended_ = false;
  std::optional<size_t> reserved_group_;
  std::vector<util::LockFile> reservation_;
  std::vector<std::string> unusable_nodes_;
};

}  // namespace tuner::runner

#endif  // TUNER_TRIAL_RUNNER_DEVICES_DEVICE_POOL_H_
