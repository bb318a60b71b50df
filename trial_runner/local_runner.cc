#include "trial_runner/local_runner.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <cerrno>
#include <cstring>

#include "trial_runner/line_reader.h"
#include "trial_runner/metric_parser.h"

namespace tuner::runner {

namespace asio = boost::asio;

struct LocalRunner::Process {
  Process(asio::io_context& io, const TrialLaunch& launch, SpawnedProcess p)
      : trial(launch.trial),
        pid(p.pid),
        pidfd(io, p.pidfd),
        stdout_reader(launch.spawn.stdout_path, kMaxMetricLineBytes),
        timeout_timer(io),
        kill_timer(io),
        stop_grace(launch.stop_grace) {}

  core::TrialId trial;
  pid_t pid;
  asio::posix::stream_descriptor pidfd;
  LineReader stdout_reader;
  FileWatcher::WatchId watch = -1;
  asio::steady_timer timeout_timer;
  asio::steady_timer kill_timer;
  std::chrono::milliseconds stop_grace;
  bool timed_out = false;
  bool stop_requested = false;
};

namespace {

// Creates (truncating) the log files, so that they can be watched before the
// process writes to them.
core::Status CreateLogFiles(const SpawnRequest& request) {
  for (const auto& path : {request.stdout_path, request.stderr_path}) {
    int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
      return core::IoError("cannot create " + path + ": " +
                           std::strerror(errno));
    }
    close(fd);
  }
  return core::Status::Ok();
}

TrialExit DescribeStatus(int status) {
  TrialExit exit;
  if (WIFEXITED(status)) exit.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) exit.signal = WTERMSIG(status);
  return exit;
}

}  // namespace

LocalRunner::LocalRunner(asio::io_context& io, RunnerObserver& observer)
    : io_(io), observer_(observer), watcher_(io) {}

LocalRunner::~LocalRunner() {
  for (auto& [trial, process] : processes_) {
    kill(-process->pid, SIGKILL);
    waitpid(process->pid, nullptr, 0);
  }
}

LocalRunner::Process* LocalRunner::Find(core::TrialId trial) {
  auto it = processes_.find(trial);
  return it == processes_.end() ? nullptr : it->second.get();
}

core::Status LocalRunner::Start(const TrialLaunch& launch) {
  if (Find(launch.trial)) {
    return core::AlreadyExists("trial " + std::to_string(launch.trial) +
                               " is already running");
  }
  TUNER_RETURN_IF_ERROR(CreateLogFiles(launch.spawn));
  auto spawned = Spawn(launch.spawn);
  if (!spawned.ok()) return spawned.status();
  auto process = std::make_unique<Process>(io_, launch, spawned.value());
  core::TrialId trial = launch.trial;
  auto watch = watcher_.Watch(launch.spawn.stdout_path,
                              [this, trial] { ReadOutput(trial); });
  if (watch.ok()) process->watch = watch.value();
  if (launch.timeout.count() > 0) {
    process->timeout_timer.expires_after(launch.timeout);
    process->timeout_timer.async_wait([this, trial](auto ec) {
      Process* p = ec ? nullptr : Find(trial);
      if (!p) return;
      p->timed_out = true;
      Stop(trial);
    });
  }
  WaitForExit(*process);
  processes_.emplace(trial, std::move(process));
  // Output written before the watch was in place.
  ReadOutput(trial);
  return core::Status::Ok();
}

void LocalRunner::WaitForExit(Process& process) {
  core::TrialId trial = process.trial;
  process.pidfd.async_wait(asio::posix::stream_descriptor::wait_read,
                           [this, trial](const boost::system::error_code& ec) {
                             if (!ec) HandleExit(trial);
                           });
}

void LocalRunner::ReadOutput(core::TrialId trial) {
  Process* process = Find(trial);
  if (!process) return;
  process->stdout_reader.ReadAvailable(
      [&](std::string_view line) { DeliverLine(trial, line); });
}

void LocalRunner::DeliverLine(core::TrialId trial, std::string_view line) {
  if (auto metrics = ParseMetricLine(line); metrics && !metrics->empty()) {
    observer_.OnMetrics(trial, std::move(*metrics));
  }
}

void LocalRunner::Stop(core::TrialId trial) {
  Process* process = Find(trial);
  if (!process || process->stop_requested) return;
  process->stop_requested = true;
  kill(-process->pid, SIGTERM);
  process->kill_timer.expires_after(process->stop_grace);
  process->kill_timer.async_wait([this, trial](auto ec) {
    Process* p = ec ? nullptr : Find(trial);
    if (p) kill(-p->pid, SIGKILL);
  });
}

void LocalRunner::StopAfter(core::TrialId trial,
                            std::chrono::milliseconds delay) {
  Process* process = Find(trial);
  if (!process || process->stop_requested) return;
  process->timeout_timer.expires_after(delay);
  process->timeout_timer.async_wait([this, trial](auto ec) {
    if (!ec) Stop(trial);
  });
}

void LocalRunner::KillAll() {
  for (auto& [trial, process] : processes_) {
    process->stop_requested = true;
    kill(-process->pid, SIGKILL);
  }
}

void LocalRunner::HandleExit(core::TrialId trial) {
  auto it = processes_.find(trial);
  if (it == processes_.end()) return;
  Process& process = *it->second;
  // The leader is a zombie until reaped, so its group id cannot be reused
  // yet: kill what it left behind, then reap it.
  kill(-process.pid, SIGKILL);
  int status = 0;
  while (waitpid(process.pid, &status, 0) < 0 && errno == EINTR) {
  }
  ReadOutput(trial);
  process.stdout_reader.Finish(
      [&](std::string_view line) { DeliverLine(trial, line); });
  TrialExit exit = DescribeStatus(status);
  exit.timed_out = process.timed_out;
  exit.stop_requested = process.stop_requested;
  watcher_.Unwatch(process.watch);
  processes_.erase(it);
  observer_.OnExit(trial, exit);
}

}  // namespace tuner::runner
