// SlurmRunner: runs each trial attempt as one job step of a Slurm
// allocation, on the node its device lease names (docs/slurm.md).
#ifndef TUNER_TRIAL_RUNNER_SLURM_SLURM_RUNNER_H_
#define TUNER_TRIAL_RUNNER_SLURM_SLURM_RUNNER_H_

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>  // before Asio: Boost 1.74 with GCC 12 needs it
#include <vector>

#include "trial_runner/slurm/slurm_command.h"
#include "trial_runner/slurm/slurm_text.h"
#include "trial_runner/trial_runner.h"

namespace tuner::runner {

struct SlurmRunnerOptions {
  std::string shim_path;  // tuner-shim, at this path on every node
  std::string job;        // the allocation whose steps run the trials
  std::vector<std::string> srun_args;  // more srun arguments per step
  // How often the trials' output files, their status files and the steps
  // (squeue) are read: inotify does not see writes made on another node.
  std::chrono::milliseconds poll{1000};
  // A Slurm command that takes longer is killed (slurmctld unreachable).
  std::chrono::milliseconds command_timeout{60000};
  // A step that squeue stopped listing, whose shim wrote no status, is
  // ended (lost, cancelled or its node failed) after this many more polls:
  // the shared filesystem may show the status late.
  int missing_polls = 3;
  // The allocation's nodes, whose states (sinfo) are read every
  // `node_polls` polls: a node that drains or fails gets no new trial.
  std::vector<std::string> nodes;
  int node_polls = 10;
  SlurmCommands commands;
};

// Starts each trial as `srun --jobid JOB --nodelist NODE ... tuner-shim ...`
// (the launch's `node`; srun runs here, in its own session, and holds the
// lease's lock fds while the step runs). The shim on the node writes the
// logs and the status file in the trial directory, which must be on a
// filesystem the nodes share with this one; the runner polls them. Steps
// are named StepName(status path) and found by that name in `squeue
// --steps`: Stop() is `scancel --signal=TERM JOB.STEP` (the shim sends
// SIGKILL after the stop grace), KillAll() `scancel --signal=USR1` (the
// shim kills at once and still writes the status). A step that ends
// without a status ended because it was cancelled (TrialExit::cancelled),
// its node failed or drained (node_failed; the observer hears
// OnNodeUsable(node, false)), or for an unknown reason (lost); a step
// cancelled or lost while squeue no longer lists the job as running ended
// with its allocation (node_failed, every node unusable). Supervisor()
// is {pid: the step id, start: the job id}. Not thread-safe: everything
// runs on the io_context's thread.
class SlurmRunner : public TrialRunner {
 public:
  SlurmRunner(boost::asio::io_context& io, RunnerObserver& observer,
              SlurmRunnerOptions options);
  // Cancels the steps still followed (unless detached); waits at most
  // the command timeout.
  ~SlurmRunner() override;
  SlurmRunner(const SlurmRunner&) = delete;
  SlurmRunner& operator=(const SlurmRunner&) = delete;

  core::Status Start(const TrialLaunch& launch) override;
  // `adoption.shim_pid` is the step id FindSupervisor returned (-1: the
  // step is gone; then the status it left is read, else NotFound).
  core::Status Adopt(const Adoption& adoption) override;
  void Stop(core::TrialId trial) override;
  void StopAfter(core::TrialId trial, std::chrono::milliseconds delay) override;
  void KillAll() override;
  void Detach() override;
  size_t running() const override { return steps_.size(); }
  pid_t ShimPid(core::TrialId trial) const override;
  std::optional<SupervisorId> Supervisor(core::TrialId trial) const override;
  // The step named after `status_path` in the allocation (runs squeue,
  // blocking: called when a tuner resumes), or -1.
  pid_t FindSupervisor(const std::optional<SupervisorId>& stored,
                       const std::string& status_path) const override;

 private:
  struct Step;
  core::Status Follow(std::unique_ptr<Step> step);
  void ArmPoll();
  void Poll();
  void OnSteps(const CommandResult& result);
  void OnNodeStates(const CommandResult& result);
  void CheckEnded(Step& step);
  void ReadOutput(Step& step);
  // Carries out the stop or kill the step waits for, once it has an id.
  void SendHalt(Step& step);
  void Signal(const Step& step, const char* signal);
  void Deliver(core::TrialId trial, TrialExit exit);
  void EndWithoutStatus(Step& step);
  void ReadNodeStates(const std::set<std::string>& nodes);
  // squeue says the job is gone (time limit, scancel): no node is usable.
  void AllocationGone();
  // Delivers the exits held for an end the tuner did not ask for (a
  // SIGTERM, a cancelled or lost step): as they are, or (`allocation_gone`)
  // as ended by the cluster, not the trial.
  void DeliverHeld(bool allocation_gone);
  // Asks whether the job still runs when an exit is held.
  void CheckHeld();
  Step* Find(core::TrialId trial);

  boost::asio::io_context& io_;
  RunnerObserver& observer_;
  SlurmRunnerOptions options_;
  boost::asio::steady_timer poll_timer_;
  bool polling_ = false;
  bool squeue_running_ = false;
  bool sinfo_running_ = false;
  int polls_ = 0;
  bool job_check_running_ = false;
  std::set<std::string> unfit_nodes_;
  std::set<std::string> lost_nodes_;  // down once: out of the allocation
  std::unordered_map<core::TrialId, std::unique_ptr<Step>> steps_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace tuner::runner

#endif  // TUNER_TRIAL_RUNNER_SLURM_SLURM_RUNNER_H_
