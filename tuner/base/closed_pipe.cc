#include "tuner/base/closed_pipe.h"

#include <poll.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>

namespace tuner {

bool ReaderGone(int fd) {
  pollfd entry{fd, POLLOUT, 0};
  return poll(&entry, 1, 0) == 1 && (entry.revents & POLLERR) != 0;
}

bool StdoutReaderGone() {
  std::cout.flush();
  std::fflush(stdout);
  bool failed = std::cout.fail() || std::ferror(stdout) != 0;
  return failed && ReaderGone(STDOUT_FILENO);
}

}  // namespace tuner
