#include "trial_runner/proc_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace tuner::runner {

namespace {
constexpr size_t kMaxProcFileBytes = 1 << 20;  // /proc files are small
}  // namespace

std::string ReadProcFd(int fd) {
  std::string out;
  char buffer[4096];
  while (out.size() < kMaxProcFileBytes) {
    ssize_t n = read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return "";
    if (n == 0) break;
    out.append(buffer, static_cast<size_t>(n));
  }
  return out;
}

std::string ReadProcFile(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  std::string out = ReadProcFd(fd);
  close(fd);
  return out;
}

}  // namespace tuner::runner
