// Locks that the kernel holds: an exclusive flock on a file. A lock
// vanishes when the last process holding its file descriptor dies, so a
// crashed process never leaves it held, and a child that inherited the
// descriptor keeps it held for as long as it lives.
//
// A lock file may sit in a folder shared with other users of the machine,
// so nothing about it is trusted: it is never followed through a symlink,
// must be a regular file with one link, and is chmod'ed only by the process
// that created it.
#ifndef TUNER_UTIL_LOCK_FILE_H_
#define TUNER_UTIL_LOCK_FILE_H_

#include <optional>
#include <string>
#include <string_view>

namespace tuner::util {

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

}  // namespace tuner::util

#endif  // TUNER_UTIL_LOCK_FILE_H_
