#include "util/capture.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

extern char** environ;

namespace tuner::util {

namespace {

constexpr size_t kMaxOutput = 16u << 20;

int WaitStatus(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return WIFSIGNALED(status) ? -WTERMSIG(status) : -1;
}

// Reads `fd` to EOF or until `deadline`; false on timeout.
bool ReadAll(int fd, std::chrono::steady_clock::time_point deadline,
             std::string& out) {
  char buffer[65536];
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    int ready = poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return false;
    ssize_t n = read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return true;
    if (out.size() < kMaxOutput) out.append(buffer, static_cast<size_t>(n));
  }
}

}  // namespace

core::Result<CaptureResult> RunCapture(const std::vector<std::string>& argv,
                                       std::chrono::milliseconds timeout) {
  if (argv.empty()) return core::InvalidArgument("empty command");
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
    return core::IoError(std::string("pipe: ") + std::strerror(errno));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 1);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  // Nothing of the tuner's reaches the tool (a library's socket, say).
  posix_spawn_file_actions_addclosefrom_np(&actions, 3);
  std::vector<char*> args;
  for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(pipe_fds[1]);
  if (rc != 0) {
    close(pipe_fds[0]);
    if (rc == ENOENT) return core::NotFound(argv[0] + ": not found");
    return core::IoError("cannot run " + argv[0] + ": " + std::strerror(rc));
  }
  CaptureResult result;
  bool finished = ReadAll(
      pipe_fds[0], std::chrono::steady_clock::now() + timeout, result.output);
  close(pipe_fds[0]);
  if (!finished) kill(pid, SIGKILL);
  result.exit_code = WaitStatus(pid);
  if (!finished) {
    return core::Error{core::ErrorCode::kUnavailable,
                       argv[0] + " did not finish within " +
                           std::to_string(timeout.count()) + " ms"};
  }
  return result;
}

}  // namespace tuner::util
