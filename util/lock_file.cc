#include "util/lock_file.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace tuner::util {

namespace {

// Never through a symlink; a FIFO planted as a lock file must not block.
constexpr int kOpenFlags = O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK;

std::string Errno(const std::string& what) {
  if (errno == ELOOP) return what + " is a symlink: refused";
  return "cannot open " + what + ": " + std::strerror(errno);
}

// Why the open file `fd` cannot be a lock file; "" when it can.
std::string Unusable(int fd, const std::string& path) {
  struct stat st;
  if (fstat(fd, &st) != 0) return "cannot stat " + path;
  if (!S_ISREG(st.st_mode)) return path + " is not a regular file: refused";
  if (st.st_nlink != 1) return path + " has other hard links: refused";
  return "";
}

// An existing lock file, read-write if we may write it (another user's may
// be read-only to us: the lock works on either).
int OpenExisting(const std::string& path) {
  int fd = open(path.c_str(), O_RDWR | kOpenFlags);
  if (fd < 0 && errno == EACCES) fd = open(path.c_str(), O_RDONLY | kOpenFlags);
  return fd;
}

// A new lock file; -1 with EEXIST when it exists (or appeared meanwhile).
int CreateNew(const std::string& path) {
  int fd = open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | kOpenFlags, 0666);
  // Ours, just created: a umask must not lock other users out.
  if (fd >= 0) fchmod(fd, 0666);
  return fd;
}

}  // namespace

bool CheckLockFile(const std::string& path, std::string* error) {
  struct stat st;
  if (lstat(path.c_str(), &st) != 0) return true;  // missing: created later
  std::string why;
  if (S_ISLNK(st.st_mode)) {
    why = path + " is a symlink: refused";
  } else if (!S_ISREG(st.st_mode)) {
    why = path + " is not a regular file: refused";
  } else if (st.st_nlink != 1) {
    why = path + " has other hard links: refused";
  }
  if (why.empty()) return true;
  if (error) *error = why;
  return false;
}

std::optional<LockFile> LockFile::TryAcquire(const std::string& path,
                                             std::string* error) {
  if (!CheckLockFile(path, error)) return std::nullopt;
  int fd = OpenExisting(path);
  if (fd < 0 && errno == ENOENT) fd = CreateNew(path);
  if (fd < 0 && errno == EEXIST) fd = OpenExisting(path);
  if (fd < 0) {
    if (error) *error = Errno(path);
    return std::nullopt;
  }
  if (std::string why = Unusable(fd, path); !why.empty()) {
    if (error) *error = why;
    close(fd);
    return std::nullopt;
  }
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (error) *error = path + " is held";
    close(fd);
    return std::nullopt;
  }
  return LockFile(fd);
}

LockFile::LockFile(LockFile&& other) noexcept : fd_(other.fd_) {
  other.fd_ = -1;
}

LockFile& LockFile::operator=(LockFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

LockFile::~LockFile() {
  if (fd_ >= 0) close(fd_);
}

void LockFile::WriteOwner(std::string_view owner) {
  if (ftruncate(fd_, 0) != 0) return;  // read-only: another user's file
  std::string text(owner);
  text += '\n';
  (void)!pwrite(fd_, text.data(), text.size(), 0);
}

LockState ProbeLock(const std::string& path) {
  return ProbeLockAt(AT_FDCWD, path);
}

LockState ProbeLockAt(int dir_fd, const std::string& name) {
  LockState state;
  // O_NOFOLLOW refuses a planted symlink; Unusable a FIFO or a hard link.
  int fd = openat(dir_fd, name.c_str(), O_RDONLY | kOpenFlags);
  if (fd < 0) return state;  // never created: free
  if (!Unusable(fd, name).empty()) {
    close(fd);
    return state;
  }
  if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
    flock(fd, LOCK_UN);
  } else {
    state.held = true;
    char buffer[4352];  // a tuner lock names its executable: a whole path
    ssize_t n = pread(fd, buffer, sizeof buffer - 1, 0);
    if (n > 0) {
      state.owner.assign(buffer, static_cast<size_t>(n));
      while (!state.owner.empty() && state.owner.back() == '\n')
        state.owner.pop_back();
    }
  }
  close(fd);
  return state;
}

}  // namespace tuner::util
