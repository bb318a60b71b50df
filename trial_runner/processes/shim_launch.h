// What a runner needs to start a trial under tuner-shim and to read how it
// ended: shared by the runner of this machine and the Slurm runner.
#ifndef TUNER_TRIAL_RUNNER_PROCESSES_SHIM_LAUNCH_H_
#define TUNER_TRIAL_RUNNER_PROCESSES_SHIM_LAUNCH_H_

#include <chrono>
#include <string>
#include <vector>

#include "core/result.h"
#include "trial_runner/processes/spawn.h"
#include "trial_runner/trial_runner.h"
#include "util/held_folder.h"

namespace tuner::runner {

// The tuner's lock that the shim watches (orphan stop); empty path or a
// zero timeout: none.
struct ShimLock {
  std::string path;
  std::chrono::milliseconds orphan_timeout{0};
};

// Creates (truncating) the log files, so that they can be followed before
// the process writes to them.
core::Status CreateLogFiles(const SpawnRequest& request);

// What posix_spawnp would run for argv[0], checked before the shim is
// started, so that a typo fails the launch at once with a clear message.
core::Status CheckExecutable(const std::vector<std::string>& argv,
                             const std::string& cwd);

// The shim's command line for `launch` (its status_path set). `env`:
// NAME=VALUE the shim sets for the trial over its own environment.
std::vector<std::string> ShimArgv(const std::string& shim_path,
                                  const ShimLock& lock,
                                  const TrialLaunch& launch,
                                  const std::vector<std::string>& env = {});

// What the shim wrote at `path`; `shim_status` is its wait status when the
// caller reaped it (else -1), which tells a killed shim from a lost file.
// Never invents a cause: without a readable status the exit is `lost`.
TrialExit ReadShimStatus(const std::string& path, int shim_status);
// The same, read in a folder held open since the launch: the status of a
// trial whose project folder was moved while it ran.
TrialExit ReadShimStatus(const util::HeldFolder& folder, int shim_status);

}  // namespace tuner::runner

#endif  // TUNER_TRIAL_RUNNER_PROCESSES_SHIM_LAUNCH_H_
