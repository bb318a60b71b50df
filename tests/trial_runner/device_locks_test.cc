// The lock directory may be shared with other users: nothing planted in it
// makes a tuner follow a link, chmod or overwrite a file that is not its
// own, and exclusion still works when another user created the lock file.
#include "trial_runner/devices/device_locks.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/catch.h"
#include "tests/support/fresh_dir.h"
#include "trial_runner/devices/device_detect.h"
#include "trial_runner/devices/device_pool.h"
#include "util/lock_file.h"

namespace tuner::runner {
namespace {

namespace fs = std::filesystem;

using testing::FreshDir;

std::string Slurp(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

mode_t ModeOf(const fs::path& path) {
  struct stat st;
  REQUIRE(stat(path.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

core::Result<DevicePool> CpuPool(const fs::path& dir) {
  Inventory inventory;
  inventory.kind = DeviceKind::kCpu;
  Device d;
  inventory.devices.push_back(d);
  PoolOptions options;
  options.lock_dir = dir.string();
  return DevicePool::Create(inventory, options);
}

TEST_CASE(
    "a symlink or hard link planted as a lock file is refused, its "
    "target untouched",
    "[devices][locks]") {
  fs::path dir = FreshDir("planted-locks", 0700);
  fs::path victim =
      dir.parent_path() / ("victim-bashrc-" + std::to_string(getpid()));
  std::ofstream(victim) << "export SECRET=1\n";
  chmod(victim.c_str(), 0600);
  fs::create_symlink(victim, dir / "cpu-0.lock");
  fs::create_hard_link(victim, dir / "cpu-1.lock");

  for (const char* name : {"cpu-0.lock", "cpu-1.lock"}) {
    std::string error;
    auto lock = util::LockFile::TryAcquire((dir / name).string(), &error);
    CHECK_FALSE(lock.has_value());
    CHECK(error.find("refused") != std::string::npos);
    CHECK_FALSE(util::ProbeLock((dir / name).string()).held);
  }
  auto pool = CpuPool(dir);  // the pool of cpu 0 refuses to start
  REQUIRE_FALSE(pool.ok());
  CHECK(pool.message().find("cpu-0.lock is a symlink") != std::string::npos);
  CHECK(Slurp(victim) == "export SECRET=1\n");
  CHECK(ModeOf(victim) == 0600);
  fs::remove_all(dir);
  fs::remove(victim);
}

TEST_CASE(
    "a lock directory others may write to without the sticky bit is "
    "refused",
    "[devices][locks]") {
  fs::path open_dir = FreshDir("open-locks", 0777);
  std::string error;
  CHECK_FALSE(EnsureLockDir(open_dir.string(), &error));
  CHECK(error.find("not safe for locks") != std::string::npos);
  CHECK(error.find('\n') == std::string::npos);
  auto pool = CpuPool(open_dir);
  REQUIRE_FALSE(pool.ok());
  CHECK(pool.message().find("not safe for locks") != std::string::npos);
  chmod(open_dir.c_str(), 0775);  // group-writable: refused too
  CHECK_FALSE(EnsureLockDir(open_dir.string(), nullptr));
  chmod(open_dir.c_str(), 0755);  // the user's own
  CHECK(EnsureLockDir(open_dir.string(), nullptr));
  fs::remove_all(open_dir);

  // Missing: created private to the user.
  fs::path fresh = FreshDir("fresh-locks", 0700) / "sub" / "locks";
  REQUIRE(EnsureLockDir(fresh.string(), nullptr));
  CHECK(ModeOf(fresh) == 0700);
  fs::remove_all(fresh.parent_path().parent_path());
}

// As root: a shared directory (root's, mode 1777) and a lock file that
// another user (nobody) created and holds; else the same with our own.
TEST_CASE("a lock file created by another user still excludes",
          "[devices][locks][process]") {
  bool root = geteuid() == 0;
  fs::path dir = FreshDir("shared-locks", root ? 01777 : 0700);
  REQUIRE(EnsureLockDir(dir.string(), nullptr));
  std::string path = (dir / "cpu-0.lock").string();
  int ready[2];
  int release[2];
  REQUIRE(pipe(ready) == 0);
  REQUIRE(pipe(release) == 0);
  pid_t child = fork();
  if (child == 0) {
    close(ready[0]);
    close(release[1]);  // so that the parent's close ends the read below
    if (root && setuid(65534) != 0) _exit(3);
    auto lock = util::LockFile::TryAcquire(path);
    char byte = lock ? 'y' : 'n';
    (void)!write(ready[1], &byte, 1);
    (void)!read(release[0], &byte, 1);  // until the parent closes it
    _exit(0);
  }
  close(ready[1]);
  close(release[0]);
  char byte = 0;
  REQUIRE(read(ready[0], &byte, 1) == 1);
  REQUIRE(byte == 'y');
  struct stat st;
  REQUIRE(stat(path.c_str(), &st) == 0);
  if (root) CHECK(st.st_uid == 65534u);
  CHECK((st.st_mode & 0777) == 0666);
  CHECK(util::ProbeLock(path).held);
  CHECK_FALSE(util::LockFile::TryAcquire(path).has_value());
  close(release[1]);
  int status = 0;
  waitpid(child, &status, 0);
  CHECK(WEXITSTATUS(status) == 0);
  auto mine =
      util::LockFile::TryAcquire(path);  // free again; still not chmod'ed
  REQUIRE(mine.has_value());
  REQUIRE(stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0666);
  close(ready[0]);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tuner::runner
