#include "trial_runner/slurm/slurm_runner.h"

#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <cerrno>
#include <filesystem>

#include "trial_runner/failure_class.h"
#include "trial_runner/line_reader.h"
#include "trial_runner/metric_parser.h"
#include "trial_runner/metric_stream.h"
#include "trial_runner/shim_launch.h"
#include "trial_runner/trial_output.h"

namespace tuner::runner {

namespace asio = boost::asio;
namespace fs = std::filesystem;

struct SlurmRunner::Step {
  Step(asio::io_context& io, const TrialLaunch& l)
      : trial(l.trial),
        launch(l),
        name(StepName(l.status_path)),
        node(l.node),
        stdout_reader(l.spawn.stdout_path, kMaxMetricLineBytes),
        metrics(l.metrics),
        stop_timer(io) {}

  core::TrialId trial;
  TrialLaunch launch;
  std::string name;  // StepName(status path)
  std::string node;
  pid_t srun = -1;  // the srun this runner started; -1: adopted
  bool srun_exited = false;
  std::optional<int64_t> step_id;  // once squeue listed it
  bool listed = false;             // squeue listed it at least once
  int missing = 0;      // polls without it, once it cannot appear any more
  bool ending = false;  // ended without a status: waiting for sinfo
  std::optional<TrialExit> held_exit;  // until squeue tells who sent it
  LineReader stdout_reader;
  MetricStream metrics;
  asio::steady_timer stop_timer;
  bool stop_requested = false, stop_sent = false;
  bool kill_requested = false, kill_sent = false;
};

namespace {

// srun.attempt-N.log (srun's own messages) and step.attempt-N.log (the
// step's, e.g. slurmstepd's "CANCELLED") next to status.attempt-N.json.
std::string SideLog(const std::string& status_path, const char* kind) {
  fs::path path(status_path);
  std::string file = path.filename().string();
  if (file.rfind("status", 0) == 0 && path.extension() == ".json") {
    file = kind + file.substr(6, file.size() - 6 - 5) + ".log";
    return (path.parent_path() / file).string();
  }
  return status_path + "." + kind + ".log";
}

std::vector<std::string> DeviceEnv(const EnvVars& env) {
  std::vector<std::string> pairs;
  for (const auto& [name, value] : env) {
    if (IsDeviceVariable(name)) pairs.push_back(name + "=" + value);
  }
  return pairs;
}

std::string JoinNodes(const std::set<std::string>& nodes) {
  std::string text;
  for (const auto& node : nodes) text += (text.empty() ? "" : ",") + node;
  return text;
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
    } else if (step->srun > 0 && !step->srun_exited) {
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
  std::string srun_log = SideLog(with_status.status_path, "srun");
  SpawnRequest srun;
  srun.argv =
      SrunArgv(options_.commands, options_.job, launch.node, step->name,
               SideLog(with_status.status_path, "step"), options_.srun_args,
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
        step->srun_exited = true;
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
  step->listed = adoption.shim_pid >= 0;
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
  if (step.held_exit) return;  // decided by the next squeue
  if (access(step.launch.status_path.c_str(), R_OK) != 0) return;
  TrialExit exit = ReadShimStatus(step.launch.status_path, -1);
  if (exit.signal == SIGTERM && !step.stop_requested && !step.kill_requested) {
    // A SIGTERM the tuner did not send: Slurm ending the allocation (its
    // time limit, `scancel JOB`) unless squeue still lists the job.
    step.held_exit = exit;
    return;
  }
  exit.stop_requested |= step.stop_requested || step.kill_requested;
  Deliver(step.trial, exit);
}

void SlurmRunner::CheckHeld() {
  bool held = std::any_of(steps_.begin(), steps_.end(),
                          [](const auto& s) { return s.second->held_exit; });
  if (!held || job_check_running_) return;
  job_check_running_ = true;
  RunCommandAsync(
      io_,
      {options_.commands.squeue, "--jobs=" + options_.job, "--noheader",
       "--format=%T"},
      options_.command_timeout, [this, alive = alive_](CommandResult result) {
        if (!*alive) return;
        job_check_running_ = false;
        std::string state = result.out.substr(0, result.out.find('\n'));
        if (result.ok() && state == "RUNNING") return DeliverHeld(false);
        bool gone = state.empty() ||
                    result.err.find("Invalid job id") != std::string::npos;
        if (!result.ok() && !gone) return;  // unknown: ask again later
        AllocationGone();  // completing, cancelled, timed out, or gone
        DeliverHeld(true);
      });
}

void SlurmRunner::DeliverHeld(bool allocation_gone) {
  std::vector<core::TrialId> held;
  for (const auto& [trial, step] : steps_) {
    if (step->held_exit) held.push_back(trial);
  }
  for (core::TrialId trial : held) {
    Step* step = Find(trial);
    if (!step) continue;
    TrialExit exit = *step->held_exit;
    exit.stop_requested |= step->stop_requested || step->kill_requested;
    if (allocation_gone) {
      exit.node_failed = true;  // not the trial's doing: it runs again
      exit.lost_why = "Slurm ended allocation " + options_.job;
    }
    Deliver(trial, exit);
  }
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
    if (!step || step->ending) continue;
    auto it = by_name.find(step->name);
    if (it != by_name.end()) {
      step->step_id = it->second.step;
      step->node = it->second.node;
      step->listed = true;
      step->missing = 0;
      if (step->kill_requested && !step->kill_sent) {
        Signal(*step, "USR1");
        step->kill_sent = true;
      } else if (step->stop_requested && !step->stop_sent) {
        SendStop(*step);
      }
      continue;
    }
    // Not listed: not yet created while its srun still runs, else gone.
    if (step->listed || step->srun < 0 || step->srun_exited) {
      if (++step->missing >= options_.missing_polls) EndWithoutStatus(*step);
    }
  }
}

void SlurmRunner::EndWithoutStatus(Step& step) {
  CheckEnded(step);  // the status may have arrived meanwhile
  if (!Find(step.trial)) return;
  step.ending = true;
  if (sinfo_running_) return;  // its answer decides this step too
  std::set<std::string> nodes;
  for (const auto& [trial, s] : steps_) {
    if (s->ending && !s->node.empty()) nodes.insert(s->node);
  }
  if (nodes.empty()) return OnNodeStates(CommandResult{});
  ReadNodeStates(nodes);
}

void SlurmRunner::ReadNodeStates(const std::set<std::string>& nodes) {
  sinfo_running_ = true;
  RunCommandAsync(io_, SinfoNodesArgv(options_.commands, JoinNodes(nodes)),
                  options_.command_timeout,
                  [this, alive = alive_](CommandResult result) {
                    if (!*alive) return;
                    sinfo_running_ = false;
                    OnNodeStates(result);
                  });
}

void SlurmRunner::OnNodeStates(const CommandResult& result) {
  auto states = ParseNodeStates(result.out);
  for (const auto& [node, state] : states) {
    // A node that went down left the allocation for good (Slurm does not
    // give it back to a --no-kill job); a drained one may come back.
    if (NodeLeftAllocation(state)) lost_nodes_.insert(node);
    bool unfit = NodeUnfit(state) || lost_nodes_.count(node) > 0;
    bool was = unfit_nodes_.count(node) > 0;
    if (unfit == was) continue;
    if (unfit) {
      unfit_nodes_.insert(node);
      spdlog::warn("node {} is {}: no new trials go there", node, state);
    } else {
      unfit_nodes_.erase(node);
    }
    observer_.OnNodeUsable(node, !unfit);
  }
  std::vector<core::TrialId> ending;
  for (const auto& [trial, step] : steps_) {
    if (step->ending) ending.push_back(trial);
  }
  for (core::TrialId trial : ending) {
    Step* step = Find(trial);
    if (!step) continue;
    TrialExit exit;
    exit.lost = true;
    exit.stop_requested = step->stop_requested || step->kill_requested;
    std::string log =
        FileTail(SideLog(step->launch.status_path, "srun"), 65536) +
        FileTail(SideLog(step->launch.status_path, "step"), 65536);
    StepEnd end = ClassifyStepEnd(log);
    auto state = states.find(step->node);
    bool node_down = state != states.end() && NodeUnfit(state->second);
    exit.node_failed = end.node_failed || node_down;
    exit.cancelled = end.cancelled && !exit.node_failed;
    if (exit.node_failed) {
      exit.lost_why = "node " + step->node + " failed or was drained" +
                      (node_down ? " (" + state->second + ")" : "") +
                      (end.line.empty() ? "" : ": " + end.line);
    } else if (exit.cancelled) {
      exit.lost_why = end.line;
    } else {
      std::string why = CommandResult{1, false, "", log}.Why();
      exit.lost_why = "its Slurm step ended without a status" +
                      (log.empty() ? std::string() : " (" + why + ")");
    }
    Deliver(trial, exit);
  }
}

void SlurmRunner::AllocationGone() {
  for (const auto& node : options_.nodes) {
    if (!lost_nodes_.insert(node).second) continue;
    unfit_nodes_.insert(node);
    spdlog::warn("allocation {} is gone: node {} gets no new trials",
                 options_.job, node);
    observer_.OnNodeUsable(node, false);
  }
}

void SlurmRunner::SendStop(Step& step) {
  step.stop_sent = true;
  Signal(step, "TERM");
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
  if (!step || step->stop_requested) return;
  step->stop_requested = true;
  if (step->step_id) SendStop(*step);  // else once squeue lists it
}

void SlurmRunner::StopAfter(core::TrialId trial,
                            std::chrono::milliseconds delay) {
  Step* step = Find(trial);
  if (!step || step->stop_requested) return;
  step->stop_timer.expires_after(delay);
  step->stop_timer.async_wait([this, trial](auto ec) {
    if (!ec) Stop(trial);
  });
}

void SlurmRunner::KillAll() {
  for (auto& [trial, step] : steps_) {
    step->kill_requested = true;
    if (step->step_id && !step->kill_sent) {
      Signal(*step, "USR1");
      step->kill_sent = true;
    }
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
