#include "trial_runner/local_runner.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
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
        stop_grace(launch.stop_grace),
        cleanup(launch.cleanup),
        metrics(launch.metrics) {}

  core::TrialId trial;
  pid_t pid;
  asio::posix::stream_descriptor pidfd;
  LineReader stdout_reader;
  FileWatcher::WatchId watch = -1;
  asio::steady_timer timeout_timer;
  asio::steady_timer kill_timer;
  std::chrono::milliseconds stop_grace;
  std::vector<std::string> cleanup;
  MetricStream metrics;
  bool timed_out = false;
  bool stop_requested = false;
  bool kill_armed = false;
  bool group_gone = false;  // its pgid may belong to someone else now
  int status = 0;           // the main process's wait status
  int cleanup_pid = -1;
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

// Reaps the group's zombies that are this process's children (orphans
// re-parented to it as a subreaper), then asks whether any process is left.
bool GroupAlive(pid_t pgid) {
  while (waitpid(-pgid, nullptr, WNOHANG) > 0) {
  }
  return kill(-pgid, 0) == 0 || errno == EPERM;
}

TrialExit DescribeStatus(int status) {
  TrialExit exit;
  if (WIFEXITED(status)) exit.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) exit.signal = WTERMSIG(status);
  return exit;
}

}  // namespace

LocalRunner::LocalRunner(asio::io_context& io, RunnerObserver& observer)
    : io_(io), observer_(observer), watcher_(io) {
  prctl(PR_SET_CHILD_SUBREAPER, 1);
}

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
  Process* process = Find(trial);
  if (!process) return;
  process->metrics.Feed(line, [&](core::Metrics metrics) {
    observer_.OnMetrics(trial, std::move(metrics));
  });
}

void LocalRunner::Stop(core::TrialId trial) {
  Process* process = Find(trial);
  if (!process || process->stop_requested) return;
  process->stop_requested = true;
  Signal(*process, SIGTERM);
  if (process->kill_armed) return;
  process->kill_armed = true;
  process->kill_timer.expires_after(process->stop_grace);
  process->kill_timer.async_wait([this, trial](auto ec) {
    Process* p = ec ? nullptr : Find(trial);
    if (p) Signal(*p, SIGKILL);
  });
}

void LocalRunner::Signal(Process& process, int signal) {
  if (!process.group_gone) kill(-process.pid, signal);
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
    Signal(*process, SIGKILL);
  }
}

void LocalRunner::HandleExit(core::TrialId trial) {
  Process* process = Find(trial);
  if (!process) return;
  while (waitpid(process->pid, &process->status, 0) < 0 && errno == EINTR) {
  }
  process->pidfd.close();
  if (!GroupAlive(process->pid)) return GroupGone(trial);
  // What the main process left behind gets the same treatment as a stopped
  // trial: SIGTERM, then SIGKILL after the grace period. The group id stays
  // reserved while any member lives, so signalling it stays safe.
  bool stopping = process->stop_requested;
  Stop(trial);
  process->stop_requested = stopping;
  WaitForGroup(trial, std::chrono::milliseconds(1));
}

void LocalRunner::WaitForGroup(core::TrialId trial,
                               std::chrono::milliseconds delay) {
  Process* process = Find(trial);
  if (!process) return;
  if (!GroupAlive(process->pid)) return GroupGone(trial);
  ReadOutput(trial);
  process->timeout_timer.expires_after(delay);
  process->timeout_timer.async_wait([this, trial, delay](auto ec) {
    if (!ec)
      WaitForGroup(trial, std::min(delay * 2, std::chrono::milliseconds(50)));
  });
}

void LocalRunner::GroupGone(core::TrialId trial) {
  Process* process = Find(trial);
  if (!process) return;
  process->group_gone = true;
  process->kill_timer.cancel();
  process->timeout_timer.cancel();
  if (process->cleanup.empty()) return Deliver(trial);
  SpawnRequest request;
  request.argv = process->cleanup;
  request.stdout_path = request.stderr_path = "/dev/null";
  auto spawned = Spawn(request);
  process->cleanup.clear();
  if (!spawned.ok()) return Deliver(trial);
  process->cleanup_pid = spawned.value().pid;
  auto waiter = std::make_shared<asio::posix::stream_descriptor>(
      io_, spawned.value().pidfd);
  waiter->async_wait(asio::posix::stream_descriptor::wait_read,
                     [this, trial, waiter](const boost::system::error_code&) {
                       Process* p = Find(trial);
                       if (p) waitpid(p->cleanup_pid, nullptr, 0);
                       Deliver(trial);
                     });
}

void LocalRunner::Deliver(core::TrialId trial) {
  auto it = processes_.find(trial);
  if (it == processes_.end()) return;
  Process& process = *it->second;
  ReadOutput(trial);
  process.stdout_reader.Finish(
      [&](std::string_view line) { DeliverLine(trial, line); });
  process.metrics.Finish([&](core::Metrics metrics) {
    observer_.OnMetrics(trial, std::move(metrics));
  });
  TrialExit exit = DescribeStatus(process.status);
  exit.timed_out = process.timed_out;
  exit.stop_requested = process.stop_requested;
  watcher_.Unwatch(process.watch);
  processes_.erase(it);
  observer_.OnExit(trial, exit);
}

}  // namespace tuner::runner
