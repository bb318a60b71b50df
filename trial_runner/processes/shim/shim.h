// tuner-shim: the small process between the tuner and one trial, in the
// spirit of a container shim. It owns the trial's process group, so that the
// trial outlives a tuner crash and a restarted tuner can adopt it.
#ifndef TUNER_TRIAL_RUNNER_PROCESSES_SHIM_SHIM_H_
#define TUNER_TRIAL_RUNNER_PROCESSES_SHIM_SHIM_H_

#include "trial_runner/processes/shim/shim_options.h"

namespace tuner::shim {

// Runs the trial to its end and returns the shim's exit code (0 once the
// status file is written). The shim is a child subreaper, so every process
// the trial starts stays in its tree, even one that calls setsid(). The
// trial: its own process group, stdin /dev/null, stdout and stderr through
// pipes into capped log files, and no other descriptor of the shim's (the
// shim, not the trial, holds the device lease locks it inherited). The
// shim: SIGTERM/SIGINT/SIGHUP stop the trial (SIGTERM to every process of
// its tree, SIGKILL after the grace period), SIGUSR1 kills it at once; it
// enforces the wall and no-output timeouts, and stops the trial when no
// tuner has held `tuner_lock` for `orphan_ms`. When the trial's main process
// has exited, what it left behind anywhere in the tree gets SIGTERM, then
// SIGKILL; once the tree is empty (every process reaped) it writes
// `status_path` atomically: {"exit_code"|"signal", "timed_out", "idle",
// "orphaned", "stop_requested", "ended_at"}, and exits, which drops the
// leases.
int RunShim(const ShimOptions& options);

}  // namespace tuner::shim

#endif  // TUNER_TRIAL_RUNNER_PROCESSES_SHIM_SHIM_H_
