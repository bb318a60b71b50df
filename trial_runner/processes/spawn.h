// Starting a trial process: posix_spawn into its own process group.
#ifndef TUNER_TRIAL_RUNNER_PROCESSES_SPAWN_H_
#define TUNER_TRIAL_RUNNER_PROCESSES_SPAWN_H_

#include <sys/types.h>

#include <string>
#include <utility>
#include <vector>

#include "core/result.h"

namespace tuner::runner {

using EnvVars = std::vector<std::pair<std::string, std::string>>;

struct SpawnRequest {
  std::vector<std::string> argv;  // argv[0] is looked up in PATH
  EnvVars env;                    // set on top of the tuner's environment
  std::string cwd;                // empty: the tuner's
  std::string stdout_path;        // created or truncated
  std::string stderr_path;
  std::vector<int> cpus;  // CPU affinity; empty: the tuner's
  // Fds the process keeps, as 3, 4, ... in this order; every other fd but
  // 0, 1 and 2 is closed in it, close-on-exec or not (device lease locks).
  std::vector<int> inherit_fds;
  bool new_session = false;  // setsid(): no terminal signals reach it
};

struct SpawnedProcess {
  pid_t pid = -1;  // also its process group id
  int pidfd = -1;  // readable once the process has exited; caller closes it
};

// Starts `request` with posix_spawn (never fork: its cost grows with the
// tuner's memory) as the leader of a new process group, with default signal
// dispositions and an empty signal mask, stdin from /dev/null and stdout and
// stderr written to files (no pipe ties the trial to the tuner). Fails with
// a message naming the program when it cannot be executed.
core::Result<SpawnedProcess> Spawn(const SpawnRequest& request);

// The environment `base` (NAME=value strings) with `overrides` applied.
std::vector<std::string> MergeEnvironment(char** base,
                                          const EnvVars& overrides);

}  // namespace tuner::runner

#endif  // TUNER_TRIAL_RUNNER_PROCESSES_SPAWN_H_
