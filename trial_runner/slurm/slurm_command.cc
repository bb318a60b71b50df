#include "trial_runner/slurm/slurm_command.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <thread>

#include "trial_runner/processes/spawn.h"

namespace tuner::runner {

namespace asio = boost::asio;

namespace {

// A file for a command's stdout or stderr, removed with this object.
class CaptureFile {
 public:
  CaptureFile() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "tuner-slurm-XXXXXX")
            .string();
    int fd = mkstemp(pattern.data());
    if (fd >= 0) close(fd), path_ = pattern;
  }
  ~CaptureFile() {
    if (!path_.empty()) std::remove(path_.c_str());
  }
  CaptureFile(const CaptureFile&) = delete;
  CaptureFile& operator=(const CaptureFile&) = delete;
  const std::string& path() const { return path_; }
  std::string Read() const {
    std::error_code ec;
    auto size = std::filesystem::file_size(path_, ec);
    if (ec) return "";
    std::ifstream in(path_, std::ios::binary);
    std::string text(std::min<uintmax_t>(size, kMaxCommandOutput), '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<size_t>(in.gcount()));
    return text;
  }

 private:
  std::string path_;
};

struct Running {
  CaptureFile out, err;
  pid_t pid = -1;
};

core::Result<std::unique_ptr<Running>> Start(
    const std::vector<std::string>& argv, SpawnedProcess& spawned) {
  auto running = std::make_unique<Running>();
  if (running->out.path().empty() || running->err.path().empty())
    return core::IoError("cannot create a temporary file for " + argv[0]);
  SpawnRequest request;
  request.argv = argv;
  request.stdout_path = running->out.path();
  request.stderr_path = running->err.path();
  auto started = Spawn(request);
  if (!started.ok()) return started.error();
  spawned = started.value();
  running->pid = spawned.pid;
  return running;
}

CommandResult Collect(const Running& running, int wait_status, bool timed_out) {
  CommandResult result;
  result.timed_out = timed_out;
  if (WIFEXITED(wait_status)) result.exit_code = WEXITSTATUS(wait_status);
  result.out = running.out.Read();
  result.err = running.err.Read();
  return result;
}

}  // namespace

std::string CommandResult::Why() const {
  if (timed_out) return "timed out";
  std::string text = err;
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r'))
    text.pop_back();
  size_t nl = text.rfind('\n');
  std::string last = nl == std::string::npos ? text : text.substr(nl + 1);
  if (!last.empty()) return last.substr(0, 300);
  return exit_code < 0 ? "killed" : "exit code " + std::to_string(exit_code);
}

core::Result<CommandResult> RunCommand(const std::vector<std::string>& argv,
                                       std::chrono::milliseconds timeout,
                                       const KeepGoing& keep_going) {
  using Clock = std::chrono::steady_clock;
  SpawnedProcess spawned;
  auto running = Start(argv, spawned);
  if (!running.ok()) return running.error();
  close(spawned.pidfd);
  auto deadline = Clock::now() + timeout;
  auto next_check = Clock::now() + std::chrono::seconds(1);
  std::optional<Clock::time_point> kill_at;
  int status = 0;
  bool timed_out = false;
  while (true) {
    pid_t done = waitpid(spawned.pid, &status, WNOHANG);
    if (done == spawned.pid || (done < 0 && errno != EINTR)) break;
    auto now = Clock::now();
    if (!timed_out && now >= deadline) {
      kill(spawned.pid, SIGKILL);
      timed_out = true;
    }
    if (keep_going && !kill_at && now >= next_check) {
      next_check = now + std::chrono::seconds(1);
      if (!keep_going(running.value()->err.Read())) {
        kill(spawned.pid, SIGTERM);
        kill_at = now + std::chrono::seconds(10);
        timed_out = true;
      }
    }
    if (kill_at && now >= *kill_at) {
      kill(spawned.pid, SIGKILL);
      kill_at = now + std::chrono::hours(1);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return Collect(*running.value(), status, timed_out);
}

void RunCommandAsync(asio::io_context& io, const std::vector<std::string>& argv,
                     std::chrono::milliseconds timeout,
                     std::function<void(CommandResult)> done) {
  SpawnedProcess spawned;
  auto started = Start(argv, spawned);
  if (!started.ok()) {
    CommandResult failed;
    failed.err = started.message();
    asio::post(io, [done = std::move(done), failed] { done(failed); });
    return;
  }
  struct Waiting {
    Waiting(asio::io_context& io, int pidfd) : pidfd(io, pidfd), timer(io) {}
    asio::posix::stream_descriptor pidfd;
    asio::steady_timer timer;
    std::unique_ptr<Running> running;
    bool timed_out = false;
  };
  auto waiting = std::make_shared<Waiting>(io, spawned.pidfd);
  waiting->running = std::move(started).value();
  waiting->timer.expires_after(timeout);
  waiting->timer.async_wait([waiting](const boost::system::error_code& ec) {
    if (ec) return;
    waiting->timed_out = true;
    kill(waiting->running->pid, SIGKILL);
  });
  waiting->pidfd.async_wait(
      asio::posix::stream_descriptor::wait_read,
      [waiting, done = std::move(done)](const boost::system::error_code&) {
        waiting->timer.cancel();
        int status = 0;
        while (waitpid(waiting->running->pid, &status, 0) < 0 &&
               errno == EINTR) {
        }
        done(Collect(*waiting->running, status, waiting->timed_out));
      });
}

}  // namespace tuner::runner
