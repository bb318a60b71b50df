#include "trial_runner/devices/device_pool.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "tests/catch.h"
#include "trial_runner/devices/device_detect.h"
#include "trial_runner/processes/spawn.h"

namespace tuner::runner {
namespace {

Inventory Cards(DeviceKind kind, int n) {
  Inventory inventory;
  inventory.kind = kind;
  for (int i = 0; i < n; ++i) {
    Device d;
    d.id = i;
    d.index = (i + 3) % n;
    inventory.devices.push_back(d);
  }
  return inventory;
}

std::string FreshLockDir() {
  static int counter = 0;
  auto dir = std::filesystem::temp_directory_path() /
             ("pool-locks-" + std::to_string(getpid()) + "-" +
              std::to_string(counter++));
  std::filesystem::remove_all(dir);
  return dir.string();
}

DevicePool MakePool(const Inventory& inventory, int k, const std::string& dir,
                    std::vector<int> ids = {}) {
  PoolOptions options;
  options.per_trial = k;
  options.lock_dir = dir;
  options.ids = std::move(ids);
  auto pool = DevicePool::Create(inventory, options);
  INFO(pool.status().message());
  REQUIRE(pool.ok());
  return std::move(pool).value();
}

TEST_CASE("Gaudi groups are aligned: {0,1},{2,3},… and {0-3},{4-7}",
          "[devices]") {
  std::string dir = FreshLockDir();
  DevicePool pairs = MakePool(Cards(DeviceKind::kHabana, 8), 2, dir);
  CHECK(pairs.groups() == 4);
  std::vector<DeviceLease> leases;
  while (auto lease = pairs.TryAcquire()) leases.push_back(std::move(*lease));
  REQUIRE(leases.size() == 4);
  for (const auto& lease : leases) {
    auto ids = lease.ids();
    CHECK(ids[0] % 2 == 0);
    CHECK(ids[1] == ids[0] + 1);
  }
  // Without module 1, {0,1} is no group, and 2 cards stay idle.
  DevicePool holes = MakePool(Cards(DeviceKind::kHabana, 8), 4, FreshLockDir(),
                              {0, 2, 3, 4, 5, 6, 7});
  CHECK(holes.groups() == 1);
  CHECK(holes.Describe().find("[4-7]") != std::string::npos);
  PoolOptions three;
  three.per_trial = 3;
  CHECK_FALSE(DevicePool::Create(Cards(DeviceKind::kHabana, 8), three).ok());
}

TEST_CASE("busy devices are skipped with a warning", "[devices]") {
  Inventory inventory = Cards(DeviceKind::kCuda, 4);
  inventory.devices[2].busy = "compute process pid 9";
  DevicePool pool = MakePool(inventory, 1, FreshLockDir());
  CHECK(pool.groups() == 3);
  REQUIRE(pool.warnings().size() == 1);
  CHECK(pool.warnings()[0].find("pid 9") != std::string::npos);
}

// The lock another tuner's trial holds on `device`.
util::LockFile HoldLease(const std::string& dir, DeviceKind kind,
                         const Device& device) {
  REQUIRE(EnsureLockDir(dir, nullptr));
  auto lock =
      util::LockFile::TryAcquire(dir + "/" + LockName(kind, device) + ".lock");
  REQUIRE(lock);
  return std::move(*lock);
}

TEST_CASE("a busy device whose lease is held is a trial's, not busy",
          "[devices]") {
  for (DeviceKind kind : {DeviceKind::kHabana, DeviceKind::kCuda}) {
    INFO(ToString(kind));
    std::string dir = FreshLockDir();
    Inventory inventory = Cards(kind, 4);
    inventory.devices[1].busy = "memory.used 30720 MiB > 2048 MiB";
    std::optional<util::LockFile> other =
        HoldLease(dir, kind, inventory.devices[1]);
    DevicePool pool = MakePool(inventory, 1, dir);
    CHECK(pool.groups() == 4);
    CHECK(pool.warnings().empty());
    std::vector<DeviceLease> leases;
    while (auto lease = pool.TryAcquire()) leases.push_back(std::move(*lease));
    CHECK(leases.size() == 3);  // not the one the other trial holds
    other.reset();              // that trial ended: the device is ours
    auto freed = pool.TryAcquire();
    REQUIRE(freed);
    CHECK(freed->ids() == std::vector<int>{1});
  }
}

TEST_CASE("a Neuron chip busy with a trial's cores keeps its other cores",
          "[devices]") {
  std::string dir = FreshLockDir();
  Inventory inventory;
  inventory.kind = DeviceKind::kNeuron;
  for (int core = 0; core < 4; ++core) {
    Device d;
    d.id = core;
    d.index = core / 2;  // two cores per chip
    if (core < 2) d.busy = "chip has processes (pid 77)";
    inventory.devices.push_back(d);
  }
  util::LockFile other =
      HoldLease(dir, DeviceKind::kNeuron, inventory.devices[0]);
  DevicePool pool = MakePool(inventory, 1, dir);
  CHECK(pool.groups() == 4);
  // Without a lease on the chip, its process is a stranger's.
  DevicePool strangers = MakePool(inventory, 1, FreshLockDir());
  CHECK(strangers.groups() == 2);
}

TEST_CASE("two pools on one lock directory never lease a device twice",
          "[devices]") {
  std::string dir = FreshLockDir();
  DevicePool a = MakePool(Cards(DeviceKind::kNeuron, 8), 2, dir);
  DevicePool b = MakePool(Cards(DeviceKind::kNeuron, 8), 2, dir);
  auto a1 = a.TryAcquire();
  auto b1 = b.TryAcquire();
  REQUIRE(a1);
  REQUIRE(b1);
  CHECK(a1->ids() != b1->ids());
  std::vector<DeviceLease> held;
  while (auto lease = b.TryAcquire()) held.push_back(std::move(*lease));
  CHECK(held.size() == 2);  // 4 groups, 1 taken by a, 1 already by b
  CHECK_FALSE(a.TryAcquire());
  CHECK(a.contended());
  int freed = b1->ids()[0];
  b.Release(std::move(*b1));
  b1.reset();
  auto a2 = a.TryAcquire();
  REQUIRE(a2);
  CHECK(a2->ids()[0] == freed);
}

TEST_CASE("a waiting 4-card pool reserves its group against 1-card pools",
          "[devices]") {
  std::string dir = FreshLockDir();
  DevicePool ones = MakePool(Cards(DeviceKind::kHabana, 8), 1, dir);
  DevicePool fours = MakePool(Cards(DeviceKind::kHabana, 8), 4, dir);
  std::vector<DeviceLease> singles;
  while (auto lease = ones.TryAcquire()) singles.push_back(std::move(*lease));
  REQUIRE(singles.size() == 8);
  CHECK_FALSE(fours.TryAcquire());  // reserves a group while it waits
  // The 1-card stream frees cards one by one and tries to take them again.
  for (auto& lease : singles) ones.Release(std::move(lease));
  singles.clear();
  std::vector<DeviceLease> retaken;
  while (auto lease = ones.TryAcquire()) retaken.push_back(std::move(*lease));
  CHECK(retaken.size() == 4);  // the reserved 4 stay free for the 4-card pool
  auto four = fours.TryAcquire();
  REQUIRE(four);
  CHECK(four->ids().size() == 4);
  // Once it holds them, its reservation is gone.
  for (auto& lease : retaken) ones.Release(std::move(lease));
  retaken.clear();
  int count = 0;
  while (auto lease = ones.TryAcquire())
    ++count, retaken.push_back(std::move(*lease));
  CHECK(count == 4);
}

TEST_CASE("a lease lives on in a trial process that inherited it",
          "[devices][process]") {
  std::string dir = FreshLockDir();
  DevicePool tuner = MakePool(Cards(DeviceKind::kCpu, 1), 1, dir);
  DevicePool other = MakePool(Cards(DeviceKind::kCpu, 1), 1, dir);
  auto lease = tuner.TryAcquire();
  REQUIRE(lease);
  SpawnRequest request;
  request.argv = {"sleep", "0.3"};
  request.stdout_path = request.stderr_path = "/dev/null";
  request.inherit_fds = lease->lock_fds();
  auto child = Spawn(request);
  REQUIRE(child.ok());
  tuner.Release(std::move(*lease));
  lease.reset();                    // this process's descriptor is closed now
  CHECK_FALSE(other.TryAcquire());  // the child still holds the lock
  waitpid(child.value().pid, nullptr, 0);
  close(child.value().pidfd);
  CHECK(other.TryAcquire());
}

TEST_CASE("without hl-smi, Gaudi cards come from sysfs module_id files",
          "[devices][process]") {
  auto root = std::filesystem::temp_directory_path() /
              ("sysfs-" + std::to_string(getpid()));
  for (auto [index, module] : {std::pair{0, 3}, {1, 2}, {2, 1}, {3, 0}}) {
    auto dir =
        root / "class/accel" / ("accel" + std::to_string(index)) / "device";
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "module_id") << module << "\n";
    std::ofstream(dir / "pci_addr") << "0000:1" << index << ":00.0\n";
  }
  std::filesystem::create_directories(root / "class/accel/accel_controlD0");
  DetectOptions options;
  options.sysfs_root = root.string();
  std::string path = getenv("PATH") ? getenv("PATH") : "";
  setenv("PATH", "/nonexistent", 1);  // no hl-smi at all
  auto found = DetectDevices(DeviceKind::kHabana, options);
  REQUIRE(found.ok());
  const auto& cards = found.value().devices;
  REQUIRE(cards.size() == 4);
  CHECK(cards[0].id == 0);
  CHECK(cards[0].index == 3);
  CHECK(cards[3].bus_id == "0000:10:00.0");
  auto none = DetectDevices(DeviceKind::kNeuron, options);
  CHECK_FALSE(none.ok());  // an explicit kind that is not there fails
  auto fallback = DetectDevices(std::nullopt, options);
  REQUIRE(fallback.ok());
  CHECK(fallback.value().kind == DeviceKind::kHabana);
  setenv("PATH", path.c_str(), 1);  // for the tests that run after this one
  std::filesystem::remove_all(root);
}

}  // namespace
}  // namespace tuner::runner
