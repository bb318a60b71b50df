// LockFile and ProbeLock in a lock directory others may plant files in:
// a FIFO neither blocks nor locks, and an existing file keeps its mode.
#include "util/lock_file.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "tests/catch.h"
#include "tests/support/fresh_dir.h"

namespace tuner::runner {
namespace {

namespace fs = std::filesystem;

using testing::FreshDir;

mode_t ModeOf(const fs::path& path) {
  struct stat st;
  REQUIRE(stat(path.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

TEST_CASE("a FIFO planted as a lock file neither blocks a probe nor locks",
          "[util][locks]") {
  fs::path dir = FreshDir("fifo-locks", 0700);
  fs::path fifo = dir / "cpu-0.lock";
  REQUIRE(mkfifo(fifo.c_str(), 0666) == 0);
  CHECK_FALSE(util::ProbeLock(fifo.string()).held);
  CHECK_FALSE(util::LockFile::TryAcquire(fifo.string()).has_value());
  fs::remove_all(dir);
}

TEST_CASE("an existing lock file is never chmod'ed", "[util][locks]") {
  fs::path dir = FreshDir("kept-mode-locks", 0700);
  fs::path file = dir / "cpu-0.lock";
  std::ofstream(file).close();
  chmod(file.c_str(), 0640);
  auto lock = util::LockFile::TryAcquire(file.string());
  REQUIRE(lock.has_value());
  CHECK(ModeOf(file) == 0640);
  lock.reset();
  fs::remove(file);
  auto created = util::LockFile::TryAcquire(file.string());  // ours: 0666
  REQUIRE(created.has_value());
  CHECK(ModeOf(file) == 0666);
  created.reset();
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tuner::runner
