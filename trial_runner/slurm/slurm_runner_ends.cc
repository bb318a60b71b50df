// SlurmRunner: how a step ended when its shim's status does not say it all
// (the step vanished without one: cancelled, its node failed, lost; or a
// SIGTERM the tuner did not send: the allocation may have ended), and the
// nodes' states that decide it.
#include <signal.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "trial_runner/output/failure_class.h"
#include "trial_runner/processes/shim_launch.h"
#include "trial_runner/slurm/slurm_runner.h"
#include "trial_runner/slurm/slurm_step.h"

namespace tuner::runner {

namespace {

std::string JoinNodes(const std::set<std::string>& nodes) {
  std::string text;
  for (const auto& node : nodes) text += (text.empty() ? "" : ",") + node;
  return text;
}

}  // namespace

void SlurmRunner::CheckHeld() {
  bool held = std::any_of(steps_.begin(), steps_.end(), [](const auto& s) {
    return s.second->phase == StepPhase::kHeld;
  });
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
    if (step->phase == StepPhase::kHeld) held.push_back(trial);
  }
  for (core::TrialId trial : held) {
    Step* step = Find(trial);
    if (!step) continue;
    TrialExit exit = *step->held_exit;
    exit.stop_requested |= step->Requested();
    if (allocation_gone) {
      exit.cause = EndCause::kNodeFailed;  // not the trial's doing: it runs
                                           // again
      exit.lost_why = "Slurm ended allocation " + options_.job;
    }
    Deliver(trial, exit);
  }
}

void SlurmRunner::EndWithoutStatus(Step& step) {
  CheckEnded(step);  // the status may have arrived meanwhile
  if (!Find(step.trial)) return;
  step.phase = StepPhase::kEnding;
  if (sinfo_running_) return;  // its answer decides this step too
  std::set<std::string> nodes;
  for (const auto& [trial, s] : steps_) {
    if (s->phase == StepPhase::kEnding && !s->node.empty())
      nodes.insert(s->node);
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
    if (step->phase == StepPhase::kEnding) ending.push_back(trial);
  }
  for (core::TrialId trial : ending) {
    Step* step = Find(trial);
    if (!step) continue;
    TrialExit exit;
    exit.cause = EndCause::kLost;
    exit.stop_requested = step->Requested();
    std::string log =
        FileTail(SideLogPath(step->launch.status_path, "srun"), 65536) +
        FileTail(SideLogPath(step->launch.status_path, "step"), 65536);
    StepEnd end = ClassifyStepEnd(log);
    auto state = states.find(step->node);
    bool node_down = state != states.end() && NodeUnfit(state->second);
    exit.cause = node_down ? EndCause::kNodeFailed : end.cause;
    if (exit.cause == EndCause::kNodeFailed) {
      exit.lost_why = "node " + step->node + " failed or was drained" +
                      (node_down ? " (" + state->second + ")" : "") +
                      (end.line.empty() ? "" : ": " + end.line);
      Deliver(trial, exit);
      continue;
    }
    if (exit.cause == EndCause::kCancelled) {
      exit.lost_why = end.line;
    } else {
      std::string why = CommandResult{1, false, "", log}.Why();
      exit.lost_why = "its Slurm step ended without a status" +
                      (log.empty() ? std::string() : " (" + why + ")");
    }
    if (exit.stop_requested) {
      Deliver(trial, exit);
      continue;
    }
    // Cancelled or lost by no request of ours: the step alone (`scancel
    // JOB.STEP`), or the whole allocation ending; squeue on the job tells.
    step->Hold(exit);
  }
  CheckHeld();
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

}  // namespace tuner::runner
