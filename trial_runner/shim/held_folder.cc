#include "trial_runner/shim/held_folder.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace tuner::shim {

HeldFolder::HeldFolder(const std::string& file_path)
    : fd_(AT_FDCWD), name_(file_path) {
  size_t slash = file_path.rfind('/');
  if (slash == std::string::npos) return;
  std::string folder = slash == 0 ? "/" : file_path.substr(0, slash);
  int fd = open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  fd_ = fd;
  name_ = file_path.substr(slash + 1);
}

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

}  // namespace tuner::shim
