#include "tuner/base/tuner_lock.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "util/proc_file.h"

namespace tuner {

namespace fs = std::filesystem;

namespace {

// Field 22 of /proc/PID/stat (after the parenthesised command name, which
// may hold spaces and parentheses); "" when there is no such process.
std::string StartTime(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(in, line);
  size_t paren = line.rfind(')');
  if (paren == std::string::npos) return "";
  std::istringstream fields(line.substr(paren + 1));
  std::string field;
  for (int i = 3; i <= 22 && fields >> field; ++i) {
    if (i == 22) return field;
  }
  return "";
}

// The process's executable; "" when unknown (gone, or not ours to read).
std::string Executable(int pid) {
  std::error_code ec;
  std::string exe =
      fs::read_symlink("/proc/" + std::to_string(pid) + "/exe", ec).string();
  const std::string deleted = " (deleted)";  // replaced since it started
  if (exe.size() > deleted.size() &&
      exe.compare(exe.size() - deleted.size(), deleted.size(), deleted) == 0)
    exe.resize(exe.size() - deleted.size());
  return ec ? "" : exe;
}

// The value of `key=` in `text` up to the next space (to the end for the
// last key, exe, whose path may hold spaces); "" when missing.
std::string Field(const std::string& text, const std::string& key,
                  bool rest = false) {
  std::string marker = key + "=";
  size_t at =
      text.compare(0, marker.size(), marker) == 0 ? 0 : text.find(" " + marker);
  if (at == std::string::npos) return "";
  size_t begin = at + marker.size() + (at == 0 ? 0 : 1);
  size_t end = rest ? std::string::npos : text.find(' ', begin);
  return text.substr(begin, end == std::string::npos ? end : end - begin);
}

}  // namespace

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

std::optional<util::LockFile> HoldTunerLock(const std::string& path,
                                            const std::string& owner) {
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  for (int attempt = 0; attempt < 50; ++attempt) {
    if (auto lock = util::LockFile::TryAcquire(path)) {
      // Only its owner writes it: its text says whom `tuner stop` signals
      // (a file made 0666 by an older tuner is narrowed; another user's
      // stays as it is).
      (void)fchmod(lock->fd(), 0644);
      lock->WriteOwner(owner);
      return lock;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return std::nullopt;
}

std::string CliOwnerText() {
  int pid = getpid();
  return "pid=" + std::to_string(pid) + " start=" + StartTime(pid) +
         " exe=" + Executable(pid);
}

LockOwner ParseLockOwner(const std::string& owner) {
  LockOwner parsed;
  parsed.server_url = Field(owner, "server");
  int pid = std::atoi(Field(owner, "pid").c_str());
  if (pid > 0) parsed.pid = pid;
  return parsed;
}

std::optional<int> VerifiedTunerPid(const std::string& owner,
                                    const std::string& lock_path,
                                    std::string* why) {
  int pid = std::atoi(Field(owner, "pid").c_str());
  std::string start = Field(owner, "start");
  std::string exe = Field(owner, "exe", true);
  std::string name = "pid " + std::to_string(pid);
  if (pid <= 0 || start.empty() || exe.empty()) {
    *why = "its lock names no tuner identity (\"" + owner + "\")";
  } else if (StartTime(pid) != start) {
    *why = name +
           " is not the tuner that took the lock (another start time: "
           "a stale or forged lock file)";
  } else if (Executable(pid) != exe ||
             fs::path(exe).filename() !=
                 fs::path(Executable(getpid())).filename()) {
    *why = name + " is not a tuner (executable " + Executable(pid) + ")";
  } else if (!util::ProcessHoldsOpen(pid, lock_path)) {
    *why = name +
           " does not hold this experiment's lock (a forged lock file: its "
           "text names another tuner)";
  } else {
    return pid;
  }
  return std::nullopt;
}

}  // namespace tuner
