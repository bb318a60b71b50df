#include "tuner/tuner_lock.h"

#include <filesystem>
#include <thread>

namespace tuner {

namespace fs = std::filesystem;

std::string TrialsRootFor(const std::string& db_path,
                          const std::string& experiment) {
  fs::path db = fs::absolute(db_path);
  // The whole file name: x.db and x.sqlite (or x) never share a root.
  fs::path root = db.parent_path() / (db.filename().string() + ".trials");
  return (root / experiment).string();
}

std::string LegacyTrialsRoot(const std::string& db_path) {
  fs::path parent = fs::absolute(db_path).parent_path();
  return (parent / "trials").string();
}

std::string ShimPath() {
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return (self.parent_path() / "tuner-shim").string();
}

std::string TunerLockPath(const std::string& trials_root,
                          const std::string& experiment) {
  return trials_root + "/.tuner-" + experiment + ".lock";
}

std::optional<runner::LockFile> HoldTunerLock(const std::string& path,
                                              const std::string& owner) {
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  for (int attempt = 0; attempt < 50; ++attempt) {
    if (auto lock = runner::LockFile::TryAcquire(path)) {
      lock->WriteOwner(owner);
      return lock;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return std::nullopt;
}

}  // namespace tuner
