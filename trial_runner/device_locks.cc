#include "trial_runner/device_locks.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace tuner::runner {

std::optional<LockFile> LockFile::TryAcquire(const std::string& path,
                                             std::string* error) {
  int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0) fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (error) *error = "cannot open " + path + ": " + std::strerror(errno);
    return std::nullopt;
  }
  fchmod(fd, 0666);  // a umask must not lock other users out
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
  if (ftruncate(fd_, 0) != 0) return;
  std::string text(owner);
  text += '\n';
  (void)!pwrite(fd_, text.data(), text.size(), 0);
}

LockState ProbeLock(const std::string& path) {
  LockState state;
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return state;  // never created: free
  if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
    flock(fd, LOCK_UN);
  } else {
    state.held = true;
    char buffer[512];
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

bool EnsureLockDir(const std::string& dir, std::string* error) {
  std::error_code ec;
  if (std::filesystem::is_directory(dir, ec)) return true;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    if (error) *error = "cannot create " + dir + ": " + ec.message();
    return false;
  }
  chmod(dir.c_str(), 01777);
  return true;
}

}  // namespace tuner::runner
