#include "util/held_folder.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <utility>

namespace tuner::util {

HeldFolder::HeldFolder(const std::string& file_path)
    : fd_(AT_FDCWD), name_(file_path), path_(file_path) {
  size_t slash = file_path.rfind('/');
  if (slash == std::string::npos) return;
  std::string folder = slash == 0 ? "/" : file_path.substr(0, slash);
  int fd = open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  fd_ = fd;
  name_ = file_path.substr(slash + 1);
}

HeldFolder::HeldFolder(HeldFolder&& other) noexcept
    : fd_(std::exchange(other.fd_, AT_FDCWD)),
      name_(std::move(other.name_)),
      path_(std::move(other.path_)) {}

HeldFolder::~HeldFolder() {
  if (fd_ != AT_FDCWD) close(fd_);
}

bool WriteAtomically(const HeldFolder& folder, const std::string& text) {
  std::string tmp = folder.name() + ".tmp";
  int fd = openat(folder.fd(), tmp.c_str(),
                  O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) return false;
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  bool written = done == text.size();
  written = close(fd) == 0 && written;
  if (!written) return false;
  return renameat(folder.fd(), tmp.c_str(), folder.fd(),
                  folder.name().c_str()) == 0;
}

std::optional<std::string> ReadHeld(const HeldFolder& folder, size_t limit) {
  int fd = openat(folder.fd(), folder.name().c_str(),
                  O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return std::nullopt;
  std::string text;
  char buffer[4096];
  while (text.size() < limit) {
    ssize_t n = read(fd, buffer, std::min(sizeof buffer, limit - text.size()));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      close(fd);
      return std::nullopt;
    }
    if (n == 0) break;
    text.append(buffer, static_cast<size_t>(n));
  }
  close(fd);
  return text;
}

}  // namespace tuner::util
