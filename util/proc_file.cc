#include "util/proc_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>

namespace tuner::util {

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

bool ProcessHoldsOpen(int pid, const std::string& path) {
  struct stat file;
  if (stat(path.c_str(), &file) != 0) return false;
  std::error_code ec;
  std::filesystem::directory_iterator fds(
      "/proc/" + std::to_string(pid) + "/fd", ec);
  for (; !ec && fds != std::filesystem::directory_iterator();
       fds.increment(ec)) {
    struct stat open;
    if (stat(fds->path().c_str(), &open) == 0 && open.st_dev == file.st_dev &&
        open.st_ino == file.st_ino)
      return true;
  }
  return false;
}

}  // namespace tuner::util
