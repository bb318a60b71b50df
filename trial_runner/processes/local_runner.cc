#include "trial_runner/processes/local_runner.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "trial_runner/output/line_reader.h"
#include "trial_runner/output/metric_parser.h"
#include "trial_runner/processes/shim_launch.h"
#include "trial_runner/processes/trial_output.h"
#include "util/proc_file.h"

namespace tuner::runner {

namespace asio = boost::asio;

struct LocalRunner::Process {
  Process(asio::io_context& io, const TrialLaunch& launch, pid_t shim_pid,
          int pidfd, bool child, util::HeldFolder folder)
      : trial(launch.trial),
        shim(shim_pid),
        own_child(child),
        pidfd(io, pidfd),
        stdout_reader(launch.spawn.stdout_path, kMaxMetricLineBytes),
        stop_timer(io),
        status_folder(std::move(folder)),
        cleanup(launch.cleanup),
        metrics(launch.metrics) {}

  core::TrialId trial;
  pid_t shim;
  bool own_child;  // started by this runner: it reaps the shim
  asio::posix::stream_descriptor pidfd;
  LineReader stdout_reader;
  FileWatcher::WatchId watch = -1;
  asio::steady_timer stop_timer;
  util::HeldFolder status_folder;  // read there even after the folder moved
  std::vector<std::string> cleanup;
  MetricStream metrics;
  bool stop_requested = false;
  TrialExit exit;
};

namespace {

int PidfdOpen(pid_t pid) {
  int fd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  if (fd >= 0) fcntl(fd, F_SETFD, FD_CLOEXEC);
  return fd;
}

}  // namespace

std::optional<int64_t> ProcessStartTime(pid_t pid) {
  std::string stat =
      util::ReadProcFile("/proc/" + std::to_string(pid) + "/stat");
  size_t close = stat.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(stat.substr(close + 2));
  std::string field;
  // Fields 3.. follow the command; starttime is field 22.
  for (int i = 3; i <= 22 && fields >> field; ++i) {
    if (i == 3 && field == "Z") return std::nullopt;  // a zombie is gone
    if (i == 22) return std::stoll(field);
  }
  return std::nullopt;
}

pid_t FindShim(const std::string& status_path) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    std::string name = entry.path().filename().string();
    if (name.empty() || !std::isdigit(static_cast<unsigned char>(name[0])))
      continue;
    std::string cmdline =
        util::ReadProcFile((entry.path() / "cmdline").string());
    std::string needle = std::string("--status") + '\0' + status_path + '\0';
    if (cmdline.find("tuner-shim") == std::string::npos ||
        cmdline.find(needle) == std::string::npos) {
      continue;
    }
    pid_t pid = static_cast<pid_t>(std::stol(name));
    if (ProcessStartTime(pid)) return pid;  // not a zombie
  }
  return -1;
}

bool ShimWritesTo(pid_t shim, const std::string& status_path) {
  std::string cmdline =
      util::ReadProcFile("/proc/" + std::to_string(shim) + "/cmdline");
  if (cmdline.find(std::string("--status") + '\0' + status_path + '\0') !=
      std::string::npos) {
    return true;
  }
  // Moved since: the shim holds its status folder open (HeldFolder).
  return util::ProcessHoldsOpen(
      shim, std::filesystem::path(status_path).parent_path().string());
}

LocalRunner::LocalRunner(asio::io_context& io, RunnerObserver& observer,
                         RunnerOptions options)
    : io_(io),
      observer_(observer),
      options_(std::move(options)),
      watcher_(io) {}

LocalRunner::~LocalRunner() {
  for (auto& [trial, process] : processes_) {
    if (process->shim <= 0) continue;
    kill(process->shim, SIGUSR1);
    if (process->own_child) waitpid(process->shim, nullptr, 0);
  }
}

LocalRunner::Process* LocalRunner::Find(core::TrialId trial) {
  auto it = processes_.find(trial);
  return it == processes_.end() ? nullptr : it->second.get();
}

pid_t LocalRunner::ShimPid(core::TrialId trial) const {
  auto it = processes_.find(trial);
  return it == processes_.end() ? -1 : it->second->shim;
}

core::Status LocalRunner::Start(const TrialLaunch& launch) {
  if (Find(launch.trial)) {
    return core::AlreadyExists("trial " + std::to_string(launch.trial) +
                               " is already running");
  }
  TUNER_RETURN_IF_ERROR(CheckExecutable(launch.spawn.argv, launch.spawn.cwd));
  TrialLaunch with_status = launch;
  if (with_status.status_path.empty())
    with_status.status_path = launch.spawn.stdout_path + ".status";
  // Held before anything of the trial appears there: the folder may be
  // moved at any instant from then on.
  util::HeldFolder status_folder(with_status.status_path);
  TUNER_RETURN_IF_ERROR(CreateLogFiles(launch.spawn));
  std::remove(with_status.status_path.c_str());
  SpawnRequest shim;
  shim.argv = ShimArgv(options_.shim_path,
                       ShimLock{options_.tuner_lock, options_.orphan_timeout},
                       with_status);
  shim.env = launch.spawn.env;
  shim.stdout_path = shim.stderr_path = "/dev/null";
  shim.cpus = launch.spawn.cpus;
  shim.inherit_fds = launch.spawn.inherit_fds;
  shim.new_session = true;
  auto spawned = Spawn(shim);
  if (!spawned.ok()) return spawned.status();
  return Follow(std::make_unique<Process>(io_, with_status, spawned.value().pid,
                                          spawned.value().pidfd, true,
                                          std::move(status_folder)),
                0);
}

core::Status LocalRunner::Adopt(const Adoption& adoption) {
  TrialLaunch launch = adoption.launch;
  launch.trial = adoption.trial;
  int pidfd = adoption.shim_pid > 0 ? PidfdOpen(adoption.shim_pid) : -1;
  if (pidfd >= 0) {
    return Follow(
        std::make_unique<Process>(io_, launch, adoption.shim_pid, pidfd, false,
                                  util::HeldFolder(launch.status_path)),
        adoption.stdout_offset);
  }
  // The shim is gone. If it finished, its status and the output after the
  // offset are still to be delivered.
  if (access(launch.status_path.c_str(), R_OK) != 0) {
    return core::NotFound("the shim of trial " +
                          std::to_string(adoption.trial) +
                          " is gone and left no status");
  }
  int placeholder = eventfd(1, EFD_CLOEXEC);  // readable at once
  TUNER_RETURN_IF_ERROR(
      Follow(std::make_unique<Process>(io_, launch, -1, placeholder, false,
                                       util::HeldFolder(launch.status_path)),
             adoption.stdout_offset));
  return core::Status::Ok();
}

core::Status LocalRunner::Follow(std::unique_ptr<Process> process,
                                 int64_t offset) {
  core::TrialId trial = process->trial;
  process->stdout_reader.Seek(offset);
  auto watch = watcher_.Watch(process->stdout_reader.path(),
                              [this, trial] { ReadOutput(trial); });
  if (watch.ok()) process->watch = watch.value();
  process->pidfd.async_wait(asio::posix::stream_descriptor::wait_read,
                            [this, trial](const boost::system::error_code& ec) {
                              if (!ec) HandleExit(trial);
                            });
  processes_.emplace(trial, std::move(process));
  ReadOutput(trial);  // output written before the watch was in place
  return core::Status::Ok();
}

void LocalRunner::ReadOutput(core::TrialId trial) {
  Process* process = Find(trial);
  if (!process) return;
  ReadReports(process->stdout_reader, process->metrics, observer_, trial);
}

void LocalRunner::Stop(core::TrialId trial) {
  Process* process = Find(trial);
  if (!process || process->stop_requested) return;
  process->stop_requested = true;
  if (process->shim > 0) kill(process->shim, SIGTERM);  // it escalates
}

void LocalRunner::StopAfter(core::TrialId trial,
                            std::chrono::milliseconds delay) {
  Process* process = Find(trial);
  if (!process || process->stop_requested) return;
  process->stop_timer.expires_after(delay);
  process->stop_timer.async_wait([this, trial](auto ec) {
    if (!ec) Stop(trial);
  });
}

void LocalRunner::KillAll() {
  for (auto& [trial, process] : processes_) {
    process->stop_requested = true;
    if (process->shim > 0) kill(process->shim, SIGUSR1);
  }
}

void LocalRunner::Detach() {
  for (auto& [trial, process] : processes_) {
    watcher_.Unwatch(process->watch);
    process->pidfd.cancel();
  }
  processes_.clear();
}

void LocalRunner::HandleExit(core::TrialId trial) {
  Process* process = Find(trial);
  if (!process) return;
  int shim_status = -1;
  if (process->own_child) {
    while (waitpid(process->shim, &shim_status, 0) < 0 && errno == EINTR) {
    }
  }
  process->pidfd.close();
  process->exit = ReadShimStatus(process->status_folder, shim_status);
  process->exit.stop_requested |= process->stop_requested;
  if (process->cleanup.empty()) return Deliver(trial);
  SpawnRequest request;
  request.argv = process->cleanup;
  request.stdout_path = request.stderr_path = "/dev/null";
  auto spawned = Spawn(request);
  if (!spawned.ok()) return Deliver(trial);
  pid_t pid = spawned.value().pid;
  auto waiter = std::make_shared<asio::posix::stream_descriptor>(
      io_, spawned.value().pidfd);
  waiter->async_wait(asio::posix::stream_descriptor::wait_read,
                     [this, trial, pid, waiter](auto) {
                       waitpid(pid, nullptr, 0);
                       Deliver(trial);
                     });
}

void LocalRunner::Deliver(core::TrialId trial) {
  auto it = processes_.find(trial);
  if (it == processes_.end()) return;
  Process& process = *it->second;
  ReadLastReports(process.stdout_reader, process.metrics, observer_, trial);
  TrialExit exit = process.exit;
  watcher_.Unwatch(process.watch);
  processes_.erase(it);
  observer_.OnExit(trial, exit);
}

std::optional<SupervisorId> LocalRunner::Supervisor(core::TrialId trial) const {
  pid_t shim = ShimPid(trial);
  if (shim <= 0) return std::nullopt;
  auto start = ProcessStartTime(shim);
  if (!start) return std::nullopt;
  return SupervisorId{shim, *start};
}

pid_t LocalRunner::FindSupervisor(const std::optional<SupervisorId>& stored,
                                  const std::string& status_path) const {
  return FindLiveShim(stored, status_path);
}

pid_t FindLiveShim(const std::optional<SupervisorId>& stored,
                   const std::string& status_path) {
  if (stored && stored->pid > 0 &&
      ProcessStartTime(stored->pid) == stored->start &&
      ShimWritesTo(stored->pid, status_path)) {
    return stored->pid;
  }
  return FindShim(status_path);
}

}  // namespace tuner::runner
