#include "trial_runner/slurm/slurm_runner.h"

#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <cerrno>
#include <filesystem>

#include "trial_runner/output/failure_class.h"
#include "trial_runner/output/line_reader.h"
#include "trial_runner/output/metric_parser.h"
#include "trial_runner/output/metric_stream.h"
#include "trial_runner/processes/shim_launch.h"
#include "trial_runner/processes/trial_output.h"
#include "trial_runner/slurm/slurm_step.h"

namespace tuner::runner {

namespace asio = boost::asio;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> DeviceEnv(const EnvVars& env) {
  std::vector<std::string> pairs;
  for (const auto& [name, value] : env) {
    if (IsDeviceVariable(name)) pairs.push_back(name + "=" + value);
  }
  return pairs;
}

}  // namespace

SlurmRunner::SlurmRunner(asio::io_context& io, RunnerObserver& observer,
                         SlurmRunnerOptions options)
    : io_(io),
      observer_(observer),
      options_(std::move(options)),
      poll_timer_(io) {}

SlurmRunner::~SlurmRunner() {
  *alive_ = false;
  for (auto& [trial, step] : steps_) {
    if (step->step_id) {
      (void)RunCommand({options_.commands.scancel, "--signal=USR1",
                        options_.job + "." + std::to_string(*step->step_id)},
                       std::chrono::milliseconds(10000));
    } else if (step->phase == StepPhase::kSubmitted) {
      kill(step->srun, SIGKILL);  // its step was never listed
    }
  }
}

SlurmRunner::Step* SlurmRunner::Find(core::TrialId trial) {
  auto it = steps_.find(trial);
  return it == steps_.end() ? nullptr : it->second.get();
}

pid_t SlurmRunner::ShimPid(core::TrialId trial) const {
  auto it = steps_.find(trial);
  if (it == steps_.end() || !it->second->step_id) return -1;
  return static_cast<pid_t>(*it->second->step_id);
}

std::optional<SupervisorId> SlurmRunner::Supervisor(core::TrialId trial) const {
  pid_t step = ShimPid(trial);
  if (step < 0) return std::nullopt;
  return SupervisorId{step, std::stoll(options_.job)};
}

pid_t SlurmRunner::FindSupervisor(const std::optional<SupervisorId>&,
                                  const std::string& status_path) const {
  auto listed = RunCommand(SqueueStepsArgv(options_.commands, options_.job),
                           options_.command_timeout);
  if (!listed.ok() || !listed.value().ok()) return -1;
  std::string name = StepName(status_path);
  for (const auto& step : ParseSteps(listed.value().out)) {
    if (step.name == name) return static_cast<pid_t>(step.step);
  }
  return -1;
}

core::Status SlurmRunner::Start(const TrialLaunch& launch) {
  if (Find(launch.trial)) {
    return core::AlreadyExists("trial " + std::to_string(launch.trial) +
                               " is already running");
  }
  if (launch.node.empty()) {
    return core::InvalidArgument("trial " + std::to_string(launch.trial) +
                                 ": no node to run on");
  }
  TUNER_RETURN_IF_ERROR(CreateLogFiles(launch.spawn));
  TrialLaunch with_status = launch;
  if (with_status.status_path.empty())
    with_status.status_path = launch.spawn.stdout_path + ".status";
  std::remove(with_status.status_path.c_str());
  auto step = std::make_unique<Step>(io_, with_status);
  std::string srun_log = SideLogPath(with_status.status_path, "srun");
  SpawnRequest srun;
  srun.argv =
      SrunArgv(options_.commands, options_.job, launch.node, step->name,
               SideLogPath(with_status.status_path, "step"), options_.srun_args,
               ShimArgv(options_.shim_path, ShimLock{}, with_status,
                        DeviceEnv(launch.spawn.env)));
  srun.env = launch.spawn.env;
  srun.cwd = launch.spawn.cwd;
  srun.stdout_path = srun.stderr_path = srun_log;
  srun.inherit_fds = launch.spawn.inherit_fds;
  srun.new_session = true;  // a Ctrl-C of the tuner does not reach it
  auto spawned = Spawn(srun);
  if (!spawned.ok()) return spawned.status();
  step->srun = spawned.value().pid;
  auto pidfd = std::make_shared<asio::posix::stream_descriptor>(
      io_, spawned.value().pidfd);
  pidfd->async_wait(
      asio::posix::stream_descriptor::wait_read,
      [this, alive = alive_, pidfd, pid = step->srun,
       trial = launch.trial](const boost::system::error_code& ec) {
        if (ec) return;
        while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
        }
        if (!*alive) return;
        Step* step = Find(trial);
        if (!step || step->srun != pid) return;
        if (step->phase == StepPhase::kSubmitted)
          step->phase = StepPhase::kUnlisted;
        CheckEnded(*step);
      });
  return Follow(std::move(step));
}

core::Status SlurmRunner::Adopt(const Adoption& adoption) {
  TrialLaunch launch = adoption.launch;
  launch.trial = adoption.trial;
  if (adoption.shim_pid < 0 && access(launch.status_path.c_str(), R_OK) != 0) {
    return core::NotFound("the step of trial " +
                          std::to_string(adoption.trial) +
                          " is gone and left no status");
  }
  auto step = std::make_unique<Step>(io_, launch);
  if (adoption.shim_pid >= 0) step->step_id = adoption.shim_pid;
  step->phase =
      adoption.shim_pid >= 0 ? StepPhase::kListed : StepPhase::kUnlisted;
  step->stdout_reader.Seek(adoption.stdout_offset);
  return Follow(std::move(step));
}

core::Status SlurmRunner::Follow(std::unique_ptr<Step> step) {
  core::TrialId trial = step->trial;
  steps_.emplace(trial, std::move(step));
  ReadOutput(*steps_[trial]);
  ArmPoll();
  return core::Status::Ok();
}

void SlurmRunner::ArmPoll() {
  if (polling_ || steps_.empty()) return;
  polling_ = true;
  poll_timer_.expires_after(options_.poll);
  poll_timer_.async_wait(
      [this, alive = alive_](const boost::system::error_code& ec) {
        if (ec || !*alive) return;
        polling_ = false;
        Poll();
      });
}

void SlurmRunner::Poll() {
  std::vector<core::TrialId> trials;
  for (const auto& [trial, step] : steps_) trials.push_back(trial);
  for (core::TrialId trial : trials) {
    if (Step* step = Find(trial)) ReadOutput(*step);
    if (Step* step = Find(trial)) CheckEnded(*step);
  }
  if (++polls_ % std::max(1, options_.node_polls) == 0 && !sinfo_running_ &&
      !options_.nodes.empty()) {
    ReadNodeStates({options_.nodes.begin(), options_.nodes.end()});
  }
  if (!steps_.empty() && !squeue_running_) {
    squeue_running_ = true;
    RunCommandAsync(io_, SqueueStepsArgv(options_.commands, options_.job),
                    options_.command_timeout,
                    [this, alive = alive_](CommandResult result) {
                      if (!*alive) return;
                      squeue_running_ = false;
                      OnSteps(result);
                    });
  }
  ArmPoll();
}

void SlurmRunner::ReadOutput(Step& step) {
  ReadReports(step.stdout_reader, step.metrics, observer_, step.trial);
}

void SlurmRunner::CheckEnded(Step& step) {
  if (step.phase == StepPhase::kHeld) return;  // decided by the next squeue
  if (access(step.launch.status_path.c_str(), R_OK) != 0) return;
  TrialExit exit = ReadShimStatus(step.launch.status_path, -1);
  if (exit.signal == SIGTERM && !step.Requested()) {
    // A SIGTERM the tuner did not send: Slurm ending the allocation (its
    // time limit, `scancel JOB`) unless squeue still lists the job.
    step.Hold(exit);
    return;
  }
  exit.stop_requested |= step.Requested();
  Deliver(step.trial, exit);
}

void SlurmRunner::OnSteps(const CommandResult& result) {
  if (!result.ok()) {
    spdlog::warn("squeue for allocation {}: {}", options_.job, result.Why());
    if (result.err.find("Invalid job id") == std::string::npos)
      return;  // nothing is known: no step counts as missing
    AllocationGone();
    DeliverHeld(true);
    return OnSteps(CommandResult{0, false, "", ""});  // none is listed
  }
  CheckHeld();
  std::unordered_map<std::string, SlurmStep> by_name;
  for (auto& step : ParseSteps(result.out)) by_name[step.name] = step;
  std::vector<core::TrialId> trials;
  for (const auto& [trial, step] : steps_) trials.push_back(trial);
  for (core::TrialId trial : trials) {
    Step* step = Find(trial);
    if (!step || step->phase == StepPhase::kEnding ||
        step->phase == StepPhase::kHeld)
      continue;
    auto it = by_name.find(step->name);
    if (it != by_name.end()) {
      step->step_id = it->second.step;
      step->node = it->second.node;
      step->phase = StepPhase::kListed;
      step->missing = 0;
      SendHalt(*step);
      continue;
    }
    // Not listed: not yet created while its srun still runs, else gone.
    if (step->phase != StepPhase::kSubmitted) {
      if (++step->missing >= options_.missing_polls) EndWithoutStatus(*step);
    }
  }
}

void SlurmRunner::SendHalt(Step& step) {
  if (!step.step_id) return;  // once squeue lists it
  if (step.halt == Halt::kKillWanted) {
    step.halt = Halt::kKillSent;
    Signal(step, "USR1");
  } else if (step.halt == Halt::kStopWanted) {
    step.halt = Halt::kStopSent;
    Signal(step, "TERM");
  }
}

void SlurmRunner::Signal(const Step& step, const char* signal) {
  std::string id = options_.job + "." + std::to_string(*step.step_id);
  RunCommandAsync(
      io_, {options_.commands.scancel, std::string("--signal=") + signal, id},
      options_.command_timeout, [id](CommandResult result) {
        // scancel --signal on a step signals it yet may exit
        // non-zero ("Invalid job id specified", Slurm 22.05);
        // a step that is gone ends through the poll anyway.
        if (!result.ok()) spdlog::debug("scancel {}: {}", id, result.Why());
      });
}

void SlurmRunner::Stop(core::TrialId trial) {
  Step* step = Find(trial);
  if (!step || step->Requested()) return;
  step->halt = Halt::kStopWanted;
  SendHalt(*step);
}

void SlurmRunner::StopAfter(core::TrialId trial,
                            std::chrono::milliseconds delay) {
  Step* step = Find(trial);
  if (!step || step->Requested()) return;
  step->stop_timer.expires_after(delay);
  step->stop_timer.async_wait([this, trial](auto ec) {
    if (!ec) Stop(trial);
  });
}

void SlurmRunner::KillAll() {
  for (auto& [trial, step] : steps_) {
    if (step->halt >= Halt::kKillWanted) continue;
    step->halt = Halt::kKillWanted;
    SendHalt(*step);
  }
}

void SlurmRunner::Detach() {
  *alive_ = false;  // pending commands and timers find nothing
  alive_ = std::make_shared<bool>(true);
  poll_timer_.cancel();
  polling_ = squeue_running_ = sinfo_running_ = false;
  steps_.clear();
}

void SlurmRunner::Deliver(core::TrialId trial, TrialExit exit) {
  auto it = steps_.find(trial);
  if (it == steps_.end()) return;
  Step& step = *it->second;
  ReadLastReports(step.stdout_reader, step.metrics, observer_, trial);
  steps_.erase(it);
  observer_.OnExit(trial, exit);
}

}  // namespace tuner::runner
