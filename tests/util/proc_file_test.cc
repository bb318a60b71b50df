// Reading /proc files of processes that exit meanwhile.
#include "util/proc_file.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <string>

#include "tests/catch.h"
#include "trial_runner/processes/local_runner.h"

namespace tuner::runner {
namespace {

// A child that waits to be killed.
pid_t StartSleeper() {
  pid_t pid = fork();
  if (pid == 0) {
    pause();
    _exit(0);
  }
  return pid;
}

std::string ProcPath(pid_t pid, const char* file) {
  return "/proc/" + std::to_string(pid) + "/" + file;
}

TEST_CASE("a /proc file whose process exits after it is opened reads as empty",
          "[runner][proc][process]") {
  pid_t pid = StartSleeper();
  int fd = open(ProcPath(pid, "cmdline").c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  std::ifstream stream(ProcPath(pid, "cmdline"));
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  // What FindShim did during an adoption, which aborted the tuner:
  auto read_with_ifstream = [&stream] {
    return std::string((std::istreambuf_iterator<char>(stream)),
                       std::istreambuf_iterator<char>());
  };
  CHECK_THROWS(read_with_ifstream());
  std::string text;
  CHECK_NOTHROW(text = util::ReadProcFd(fd));
  CHECK(text.empty());
  close(fd);
}

TEST_CASE("ProcessStartTime: a live process has one, a reaped one none",
          "[runner][proc][process]") {
  pid_t pid = StartSleeper();
  auto start = ProcessStartTime(pid);
  CHECK(start.has_value());
  CHECK(ProcessStartTime(pid) == start);
  CHECK_FALSE(util::ReadProcFile(ProcPath(pid, "cmdline")).empty());
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  CHECK_FALSE(ProcessStartTime(pid).has_value());
  CHECK(util::ReadProcFile(ProcPath(pid, "cmdline")).empty());
  CHECK(FindShim("/nonexistent/status.json") == -1);
}

}  // namespace
}  // namespace tuner::runner
