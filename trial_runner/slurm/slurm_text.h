// Slurm's command lines and what its commands print: pure functions, so
// that the Slurm runner's logic is tested without a cluster.
#ifndef TUNER_TRIAL_RUNNER_SLURM_SLURM_TEXT_H_
#define TUNER_TRIAL_RUNNER_SLURM_SLURM_TEXT_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "trial_runner/processes/spawn.h"
#include "trial_runner/trial_runner.h"

namespace tuner::runner {

// Slurm's client commands; tests may name other programs.
struct SlurmCommands {
  std::string srun = "srun";
  std::string squeue = "squeue";
  std::string scancel = "scancel";
  std::string sinfo = "sinfo";
  std::string salloc = "salloc";
  std::string scontrol = "scontrol";
};

// One job step as squeue lists it.
struct SlurmStep {
  std::string job;   // "1234"
  int64_t step = 0;  // the step id within the job
  std::string node;  // where it runs (one node: the tuner's steps)
  std::string name;  // its name (StepName)
};

// FNV-1a, 64 bits: a short stable name for a path.
uint64_t Fnv1a64(std::string_view text);

// srun.attempt-N.log (what srun printed) or step.attempt-N.log (what Slurm
// printed into the step, e.g. "CANCELLED"): `kind` "srun" or "step", next
// to the attempt's status.attempt-N.json.
std::string SideLogPath(const std::string& status_path, const char* kind);

// The name of the step that runs one attempt, made from its status file's
// path (unique per attempt): "tuner-" and 16 hex digits, safe in any
// Slurm field, so a restarted tuner finds the step by it.
std::string StepName(const std::string& status_path);

// The variables the cluster may set for a step itself (GPU GRES binding)
// and that the tuner's lease must win over: passed to the shim with --env.
bool IsDeviceVariable(std::string_view name);

// `srun` for one step on `node` of allocation `job`: one task, sharing the
// node's CPUs and memory with the other steps (--overlap: the tuner, not
// Slurm, partitions the node), stdin none, its own output to `log` (the
// trial's output is the shim's), then `extra` (cluster.srun_args), then
// the program.
std::vector<std::string> SrunArgv(const SlurmCommands& commands,
                                  const std::string& job,
                                  const std::string& node,
                                  const std::string& name,
                                  const std::string& log,
                                  const std::vector<std::string>& extra,
                                  const std::vector<std::string>& program);

// `squeue` listing the steps of `job`, one per line: "JOB.STEP|NODES|NAME".
std::vector<std::string> SqueueStepsArgv(const SlurmCommands& commands,
                                         const std::string& job);
// Parses SqueueStepsArgv's output; lines that are not a step (the batch
// and extern steps, garbage) are skipped.
std::vector<SlurmStep> ParseSteps(std::string_view text);

// `sinfo` printing "NODE|STATE" for `nodes` (comma-separated).
std::vector<std::string> SinfoNodesArgv(const SlurmCommands& commands,
                                        const std::string& nodes);
// NODE -> state ("idle", "mixed", "down*", "drained", ...).
std::map<std::string, std::string> ParseNodeStates(std::string_view text);
// Whether a node in `state` must get no new step: down, drained or
// draining, failing, not responding ("*"), powered down, or unknown.
bool NodeUnfit(std::string_view state);

// Whether a node in `state` left the allocation for good: it went down or
// failed (Slurm shrinks a --no-kill job and never gives the node back).
bool NodeLeftAllocation(std::string_view state);

// The job id in salloc's "Granted job allocation 1234" (or sbatch's
// "Submitted batch job 1234"); nullopt when there is none.
std::optional<std::string> ParseGrantedJob(std::string_view text);
// Whether `job` looks like a Slurm job id (digits, optionally with an
// array/het suffix such as 12_3 or 12+1).
bool ValidJobId(std::string_view job);

// Why a step ended without its shim's status, from srun's and the step's
// logs: kCancelled for a line saying it was cancelled ("*** STEP 12.3 ON n1
// CANCELLED AT ..." or srun's "task 0: Killed": the shim got SIGKILL, which
// only Slurm sends it), kNodeFailed for one saying its node failed (the
// last such line decides), else kLost with no line.
struct StepEnd {
  EndCause cause = EndCause::kLost;
  std::string line;  // the line that said so
};
StepEnd ClassifyStepEnd(std::string_view srun_log);

}  // namespace tuner::runner

#endif  // TUNER_TRIAL_RUNNER_SLURM_SLURM_TEXT_H_
