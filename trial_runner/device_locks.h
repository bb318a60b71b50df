// Leases that the kernel holds: an exclusive flock on one file per device.
// A lock vanishes when the last process holding its file descriptor dies,
// so a crashed tuner never leaves a card locked, and a trial that inherited
// the descriptor keeps its card locked for as long as it lives.
#ifndef TUNER_TRIAL_RUNNER_DEVICE_LOCKS_H_
#define TUNER_TRIAL_RUNNER_DEVICE_LOCKS_H_

#include <optional>
#include <string>
#include <string_view>

namespace tuner::runner {

// A held lock. Move-only; destroying it closes this process's descriptor.
class LockFile {
 public:
  // Takes the lock on `path` (created, mode 0666, so that other users'
  // tuners can share it) without waiting; nullopt when another open file
  // holds it or the file cannot be opened (then `error` says why).
  static std::optional<LockFile> TryAcquire(const std::string& path,
                                            std::string* error = nullptr);
  LockFile(LockFile&& other) noexcept;
  LockFile& operator=(LockFile&& other) noexcept;
  LockFile(const LockFile&) = delete;
  LockFile& operator=(const LockFile&) = delete;
  ~LockFile();

  // Replaces the file's text: who holds it, for `tuner devices`.
  void WriteOwner(std::string_view owner);
  // Close-on-exec; a spawn that should inherit it must say so.
  int fd() const { return fd_; }

 private:
  explicit LockFile(int fd) : fd_(fd) {}
  int fd_ = -1;
};

struct LockState {
  bool held = false;
  std::string owner;  // the holder's WriteOwner text, when held
};

// Whether someone holds `path`'s lock (by taking and dropping it: another
// process's TryAcquire may fail during that instant).
LockState ProbeLock(const std::string& path);

// Creates `dir` (mode 1777, like /tmp, when this call creates it).
bool EnsureLockDir(const std::string& dir, std::string* error);

}  // namespace tuner::runner

#endif  // TUNER_TRIAL_RUNNER_DEVICE_LOCKS_H_
