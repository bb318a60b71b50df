// Leases that the kernel holds: an exclusive flock on one file per device.
// A lock vanishes when the last process holding its file descriptor dies,
// so a crashed tuner never leaves a card locked, and a trial that inherited
// the descriptor keeps its card locked for as long as it lives.
//
// The lock directory may be shared with other users of the machine, so
// nothing in it is trusted: a lock file is never followed through a
// symlink, must be a regular file with one link, and is chmod'ed only by
// the process that created it (see CheckLockDir for the directory).
#ifndef TUNER_TRIAL_RUNNER_DEVICE_LOCKS_H_
#define TUNER_TRIAL_RUNNER_DEVICE_LOCKS_H_

#include <optional>
#include <string>
#include <string_view>

namespace tuner::runner {

// A held lock. Move-only; destroying it closes this process's descriptor.
class LockFile {
 public:
  // Takes the lock on `path` without waiting. A missing file is created
  // mode 0666 (so that other users' tuners can share it); an existing one
  // is opened as it is, never through a symlink and never chmod'ed.
  // nullopt when another open file holds it or the file cannot be used (a
  // symlink, not a regular file, a hard link): then `error` says why.
  static std::optional<LockFile> TryAcquire(const std::string& path,
                                            std::string* error = nullptr);
  LockFile(LockFile&& other) noexcept;
  LockFile& operator=(LockFile&& other) noexcept;
  LockFile(const LockFile&) = delete;
  LockFile& operator=(const LockFile&) = delete;
  ~LockFile();

  // Replaces the file's text: who holds it, for `tuner devices` (nothing
  // when the file is another user's and read-only to us).
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
// process's TryAcquire may fail during that instant). A path that is not a
// regular file (a planted symlink, a FIFO) is never opened: not held.
LockState ProbeLock(const std::string& path);

// ProbeLock of the file `name` in the folder open as `dir_fd` (AT_FDCWD: the
// working directory): the same file however that folder is renamed since.
LockState ProbeLockAt(int dir_fd, const std::string& name);

// Whether `path` may serve as a lock file: missing, or a regular file with
// one link (not a symlink, FIFO, directory or hard link to another file).
// Else false, and `error` says why.
bool CheckLockFile(const std::string& path, std::string* error);

// Whether `dir` is safe to keep locks in for the current user: owned by
// root with the sticky bit (like /tmp: shared by every user of the machine;
// no user can remove or replace another's lock file), or owned by the user
// and writable by nobody else. A symlink to it must belong to root or the
// user. Else false, and `error` says why and how to fix it, in one line.
bool CheckLockDir(const std::string& dir, std::string* error);

// Creates `dir` when missing (mode 0700: private to the user; a directory
// shared between users is made by root, mode 1777), then CheckLockDir.
bool EnsureLockDir(const std::string& dir, std::string* error);

}  // namespace tuner::runner

#endif  // TUNER_TRIAL_RUNNER_DEVICE_LOCKS_H_
