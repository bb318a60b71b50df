#include "tuner/base/small_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace tuner {

namespace {

std::string Errno(const std::string& path) {
  return path + ": " + std::strerror(errno);
}

}  // namespace

core::Result<std::string> ReadSmallFile(const std::string& path,
                                        size_t max_bytes) {
  // O_NONBLOCK: opening a FIFO does not wait for a writer.
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return core::NotFound(Errno(path));
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    auto error = core::IoError(Errno(path));
    close(fd);
    return error;
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    return core::InvalidArgument(path + ": not a regular file");
  }
  std::string text;
  char buffer[65536];
  for (;;) {
    ssize_t n = read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      auto error = core::IoError(Errno(path));
      close(fd);
      return error;
    }
    if (n == 0) break;
    text.append(buffer, static_cast<size_t>(n));
    if (text.size() > max_bytes) {
      close(fd);
      return core::InvalidArgument(path + ": larger than " +
                                   std::to_string(max_bytes) + " bytes");
    }
  }
  close(fd);
  return text;
}

}  // namespace tuner
