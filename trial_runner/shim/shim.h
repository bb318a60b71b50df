// tuner-shim: the small process between the tuner and one trial, in the
// spirit of a container shim. It owns the trial's process group, so that the
// trial outlives a tuner crash and a restarted tuner can adopt it.
#ifndef TUNER_TRIAL_RUNNER_SHIM_SHIM_H_
#define TUNER_TRIAL_RUNNER_SHIM_SHIM_H_

#include "trial_runner/shim/shim_options.h"

namespace tuner::shim {

// Runs the trial to its end and returns the shim's exit code (0 once the
// status file is written). The trial: its own process group, stdin
// /dev/null, stdout and stderr through pipes into capped log files. The shim:
// SIGTERM/SIGINT/SIGHUP stop the trial (SIGTERM to its group, SIGKILL after
// the grace period), SIGUSR1 kills it at once; it enforces the wall and
// no-output timeouts, and stops the trial when no tuner has held
// `tuner_lock` for `orphan_ms`. When the trial's main process has exited and
// its group is empty (what it left behind gets SIGTERM, then SIGKILL), it
// writes `status_path` atomically: {"exit_code"|"signal", "timed_out",
// "idle", "orphaned", "stop_requested", "ended_at"}. Device lease locks it
// inherited are held (by it and the trial) until then.
int RunShim(const ShimOptions& options);

}  // namespace tuner::shim

#endif  // TUNER_TRIAL_RUNNER_SHIM_SHIM_H_
