#include "trial_runner/devices/device_pool.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <limits>

#include "trial_runner/devices/device_parsers.h"

namespace tuner::runner {

namespace {

bool Wanted(const PoolOptions& options, int id) {
  return options.ids.empty() ||
         std::find(options.ids.begin(), options.ids.end(), id) !=
             options.ids.end();
}

// The CPUs of the device at `position` of `count`: an equal share.
std::vector<int> CpuShare(const std::vector<int>& cpus, size_t position,
                          size_t count) {
  size_t per = count ? cpus.size() / count : 0;
  if (per == 0) return {};
  return std::vector<int>(
      cpus.begin() + static_cast<long>(position * per),
      cpus.begin() + static_cast<long>((position + 1) * per));
}

// "node n1: " before a cluster node's messages; "" on this machine.
std::string NodePrefix(const std::string& node) {
  return node.empty() ? "" : "node " + node + ": ";
}

core::Status CheckNodeName(const std::string& node) {
  bool ok = node != "." && node != ".." && node.size() <= 255;
  for (char c : node)
    ok &= std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' ||
          c == '-';
  if (ok) return core::Status::Ok();
  return core::InvalidArgument("node name '" + node +
                               "': expected letters, digits, '.', '_' or '-'");
}

bool AlignedKind(DeviceKind kind) {
  return kind == DeviceKind::kHabana || kind == DeviceKind::kNeuron;
}

core::Status CheckPerTrial(DeviceKind kind, int k) {
  if (k < 1) return core::InvalidArgument("devices.per_trial must be >= 1");
  if (kind == DeviceKind::kHabana && k != 1 && k != 2 && k != 4 && k != 8) {
    return core::InvalidArgument(
        "devices.per_trial: Gaudi trials use 1, 2, 4 or 8 cards (aligned "
        "module groups), not " +
        std::to_string(k));
  }
  return core::Status::Ok();
}

}  // namespace

std::vector<int> DeviceLease::ids() const {
  std::vector<int> out;
  for (const auto& d : devices) out.push_back(d.id);
  return out;
}

std::vector<int> DeviceLease::lock_fds() const {
  std::vector<int> out;
  for (const auto& lock : locks) out.push_back(lock.fd());
  return out;
}

void DeviceLease::Label(const std::string& owner) {
  for (auto& lock : locks) lock.WriteOwner(owner);
}

core::Result<DevicePool> DevicePool::Create(const Inventory& inventory,
                                            const PoolOptions& options) {
  DevicePool pool;
  pool.kind_ = inventory.kind;
  pool.options_ = options;
  int k = options.per_trial;
  TUNER_RETURN_IF_ERROR(CheckPerTrial(inventory.kind, k));
  TUNER_RETURN_IF_ERROR(CheckNodeName(options.node));
  if (options.shared_slots > 0) {
    for (int slot = 0; slot < options.shared_slots; ++slot) {
      Device device;
      device.id = device.index = slot;
      device.name = "shared cpu slot";
      pool.groups_.push_back({{device}, {}, false, {}, options.node});
    }
    pool.options_.lock_dir.clear();
    return pool;
  }
  // Position in the inventory decides the CPU share; the id the alignment.
  std::vector<std::pair<Device, std::vector<int>>> usable;
  size_t count = inventory.devices.size();
  for (size_t p = 0; p < count; ++p) {
    const Device& d = inventory.devices[p];
    if (!Wanted(options, d.id)) continue;
    if (!d.busy.empty() && !pool.LeaseHeld(inventory, d)) {
      pool.warnings_.push_back(NodePrefix(options.node) +
                               std::string(ToString(inventory.kind)) + " " +
                               std::to_string(d.id) +
                               " is in use by a "
                               "process that is not ours (" +
                               d.busy + "): skipped");
      continue;
    }
    std::vector<int> cpus;
    if (inventory.kind == DeviceKind::kCpu) {
      cpus = {d.id};
    } else if (options.pin_cpus) {
      cpus = CpuShare(options.cpus, p, count);
    }
    usable.emplace_back(d, std::move(cpus));
  }
  for (size_t i = 0; i + static_cast<size_t>(k) <= usable.size();) {
    bool aligned = true;
    for (int j = 0; j < k; ++j) {
      aligned &= usable[i + j].first.id == usable[i].first.id + j;
    }
    if (AlignedKind(inventory.kind) &&
        (usable[i].first.id % k != 0 || !aligned)) {
      ++i;
      continue;
    }
    Group group;
    for (int j = 0; j < k; ++j) {
      group.devices.push_back(usable[i + j].first);
      const auto& cpus = usable[i + j].second;
      group.cpus.insert(group.cpus.end(), cpus.begin(), cpus.end());
    }
    if (!options.pin_cpus) group.cpus.clear();
    group.node = options.node;
    pool.groups_.push_back(std::move(group));
    i += static_cast<size_t>(k);
  }
  if (pool.groups_.empty()) {
    return core::InvalidArgument(
        NodePrefix(options.node) + "no group of " + std::to_string(k) + " " +
        std::string(ToString(inventory.kind)) + " device(s) is free: " +
        std::to_string(usable.size()) + " usable of " + std::to_string(count) +
        (AlignedKind(inventory.kind) ? " (groups must be aligned)" : ""));
  }
  size_t idle = usable.size() - pool.groups_.size() * static_cast<size_t>(k);
  if (options.max_groups > 0 &&
      pool.groups_.size() > static_cast<size_t>(options.max_groups)) {
    pool.groups_.resize(static_cast<size_t>(options.max_groups));
    idle = 0;  // asked for
  }
  if (idle > 0) {
    pool.warnings_.push_back(NodePrefix(options.node) + std::to_string(idle) +
                             " usable device(s) fit no "
                             "group of " +
                             std::to_string(k) + " and stay idle");
  }
  if (!options.lock_dir.empty()) TUNER_RETURN_IF_ERROR(pool.CheckLocks());
  return pool;
}

core::Status DevicePool::CheckLocks() const {
  std::string error;
  if (!EnsureLockDir(options_.lock_dir, &error))
    return core::IoError("lock directory: " + error);
  if (!options_.node.empty() &&
      (!EnsureLockDir(options_.lock_dir + "/nodes", &error) ||
       !EnsureLockDir(LockDirOf(options_.node), &error)))
    return core::IoError("lock directory: " + error);
  for (const auto& group : groups_) {
    for (const auto& d : group.devices) {
      if (!util::CheckLockFile(LockPath(group.node, d, ".lock"), &error) ||
          !util::CheckLockFile(LockPath(group.node, d, ".reserve"), &error))
        return core::IoError("lock directory: " + error);
    }
  }
  return core::Status::Ok();
}

std::string DevicePool::LockDirOf(const std::string& node) const {
  return node.empty() ? options_.lock_dir
                      : options_.lock_dir + "/nodes/" + node;
}

std::string DevicePool::LockPath(const std::string& node, const Device& device,
                                 const char* suffix) const {
  return LockDirOf(node) + "/" + LockName(kind_, device) + suffix;
}

core::Result<DevicePool> DevicePool::Join(std::vector<DevicePool> pools) {
  if (pools.empty()) return core::InvalidArgument("no node has devices");
  DevicePool joined = std::move(pools.front());
  joined.options_.node.clear();
  for (size_t i = 1; i < pools.size(); ++i) {
    DevicePool& pool = pools[i];
    if (pool.kind_ != joined.kind_ || pool.group_size() != joined.group_size())
      return core::InvalidArgument(
          "node " + pool.options_.node + " has " + pool.Describe() +
          ", unlike the first node's " + joined.Describe());
    for (auto& group : pool.groups_) joined.groups_.push_back(std::move(group));
    for (auto& warning : pool.warnings_)
      joined.warnings_.push_back(std::move(warning));
  }
  return joined;
}

void DevicePool::SetNodeUsable(const std::string& node, bool usable) {
  auto& nodes = unusable_nodes_;
  nodes.erase(std::remove(nodes.begin(), nodes.end(), node), nodes.end());
  if (!usable) nodes.push_back(node);
}

bool DevicePool::AnyNodeUsable() const {
  return std::any_of(groups_.begin(), groups_.end(),
                     [this](const Group& g) { return NodeUsable(g.node); });
}

std::vector<std::string> DevicePool::nodes() const {
  std::vector<std::string> out;
  for (const auto& group : groups_) {
    if (std::find(out.begin(), out.end(), group.node) == out.end())
      out.push_back(group.node);
  }
  return out;
}

bool DevicePool::LeaseHeld(const Inventory& inventory,
                           const Device& device) const {
  if (options_.lock_dir.empty()) return false;
  if (util::ProbeLock(LockPath(options_.node, device, ".lock")).held)
    return true;
  if (kind_ != DeviceKind::kNeuron) return false;
  // neuron-ls shows processes per chip: a trial on one of its cores.
  for (const auto& other : inventory.devices) {
    if (other.index == device.index && other.id != device.id &&
        util::ProbeLock(LockPath(options_.node, other, ".lock")).held)
      return true;
  }
  return false;
}

bool DevicePool::ReservedByOthers(const Group& group) const {
  for (const auto& d : group.devices) {
    if (util::ProbeLock(LockPath(group.node, d, ".reserve")).held) return true;
  }
  return false;
}

std::optional<std::vector<util::LockFile>> DevicePool::LockGroup(
    const Group& group, size_t& held_elsewhere) {
  std::vector<util::LockFile> locks;
  held_elsewhere = 0;
  for (const auto& d : group.devices) {
    auto lock = util::LockFile::TryAcquire(LockPath(group.node, d, ".lock"));
    if (lock) {
      locks.push_back(std::move(*lock));
    } else {
      ++held_elsewhere;
    }
  }
  if (held_elsewhere > 0) return std::nullopt;
  return locks;
}

std::optional<DeviceLease> DevicePool::TryAcquire() {
  contended_ = false;
  bool locking = !options_.lock_dir.empty();
  size_t best = groups_.size();
  size_t best_held = std::numeric_limits<size_t>::max();
  for (size_t i = 0; i < groups_.size(); ++i) {
    Group& group = groups_[i];
    if (group.leased || !NodeUsable(group.node)) continue;
    if (group.rest_until > std::chrono::steady_clock::now()) {
      contended_ = true;  // free again soon: worth polling for
      continue;
    }
    DeviceLease lease;
    if (locking) {
      if (reserved_group_ != i && ReservedByOthers(group)) {
        contended_ = true;
        continue;
      }
      size_t held = 0;
      auto locks = LockGroup(group, held);
      if (!locks) {
        contended_ = true;
        if (held < best_held) best = i, best_held = held;
        continue;
      }
      lease.locks = std::move(*locks);
    }
    group.leased = true;
    StopWaiting();
    lease.group = static_cast<int>(i);
    lease.kind = kind_;
    lease.devices = group.devices;
    lease.cpus = group.cpus;
    lease.node = group.node;
    return lease;
  }
  if (contended_ && options_.per_trial > 1 && !reserved_group_ &&
      best < groups_.size()) {
    Reserve(best);
  }
  return std::nullopt;
}

void DevicePool::Reserve(size_t group) {
  std::vector<util::LockFile> locks;
  for (const auto& d : groups_[group].devices) {
    auto lock = util::LockFile::TryAcquire(
        LockPath(groups_[group].node, d, ".reserve"));
    if (!lock) return;  // someone else reserves it: try again later
    lock->WriteOwner("reserved by pid " + std::to_string(getpid()));
    locks.push_back(std::move(*lock));
  }
  reservation_ = std::move(locks);
  reserved_group_ = group;
}

std::vector<int> DevicePool::reserved_ids() const {
  std::vector<int> out;
  if (!reserved_group_) return out;
  for (const auto& d : groups_[*reserved_group_].devices) out.push_back(d.id);
  return out;
}

void DevicePool::StopWaiting() {
  reservation_.clear();
  reserved_group_.reset();
}

std::optional<DeviceLease> DevicePool::Adopt(const std::vector<int>& ids,
                                             const std::string& node) {
  for (size_t i = 0; i < groups_.size(); ++i) {
    Group& group = groups_[i];
    std::vector<int> group_ids;
    for (const auto& d : group.devices) group_ids.push_back(d.id);
    if (group.leased || group_ids != ids || group.node != node) continue;
    group.leased = true;
    DeviceLease lease;
    lease.group = static_cast<int>(i);
    lease.kind = kind_;
    lease.devices = group.devices;
    lease.cpus = group.cpus;
    lease.node = group.node;
    return lease;
  }
  return std::nullopt;
}

void DevicePool::Release(DeviceLease lease, std::chrono::milliseconds rest) {
  if (lease.group < 0 || static_cast<size_t>(lease.group) >= groups_.size())
    return;
  Group& group = groups_[static_cast<size_t>(lease.group)];
  group.leased = false;
  group.rest_until = std::chrono::steady_clock::now() + rest;
}

bool DevicePool::NodeUsable(const std::string& node) const {
  return std::find(unusable_nodes_.begin(), unusable_nodes_.end(), node) ==
         unusable_nodes_.end();
}

size_t DevicePool::free() const {
  return static_cast<size_t>(
      std::count_if(groups_.begin(), groups_.end(),
                    [](const Group& g) { return !g.leased; }));
}

std::string DevicePool::Describe() const {
  if (options_.shared_slots > 0) {
    return std::to_string(groups_.size()) +
           " cpu slot(s) sharing the CPUs, unpinned (more slots than CPUs)";
  }
  size_t k = groups_.empty() ? 0 : groups_.front().devices.size();
  std::string text = std::to_string(groups_.size() * k) + " " +
                     std::string(ToString(kind_)) + " device(s) in " +
                     std::to_string(groups_.size()) + " group(s) of " +
                     std::to_string(k) + ":";
  bool several_nodes = nodes().size() > 1;
  std::string node = "";
  for (const auto& g : groups_) {
    if (several_nodes && g.node != node)
      text += " " + g.node + ":", node = g.node;
    std::vector<int> ids;
    for (const auto& d : g.devices) ids.push_back(d.id);
    text += " [" + FormatCpuList(ids) + "]";
  }
  return text;
}

}  // namespace tuner::runner
