// LaunchPlanner: what an attempt of a trial is on this machine: its folder
// and files, its command line and environment on a device lease, its limits,
// and where its reports come from. Knows no store, runner or scheduler.
#ifndef TUNER_TUNER_SWEEP_LAUNCH_PLANNER_H_
#define TUNER_TUNER_SWEEP_LAUNCH_PLANNER_H_

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/result.h"
#include "core/trial.h"
#include "trial_runner/devices/device_pool.h"
#include "trial_runner/trial_runner.h"
#include "tuner/config/experiment_config.h"

namespace tuner {

// A trial about to launch: who it is and how far it got.
struct AttemptOf {
  core::TrialId trial = 0;
  const core::Params* params = nullptr;  // required
  int launched = 0;  // attempts launched before this one (0: its first)
};

// An attempt ready to start.
struct PlannedLaunch {
  runner::TrialLaunch launch;
  std::vector<int> ports;    // held for it until ReleasePorts()
  std::string output_dir;    // checkpoints.dir filled in; "" without one
  std::string resumed_from;  // the checkpoint it resumes; "" none
};

// Not thread-safe; one per sweep.
class LaunchPlanner {
 public:
  // `trials_root`: trials/<id>/ live under it. `cpus`: the machine's,
  // shared among the pool's `groups` for the trials' thread counts.
  LaunchPlanner(const ExperimentConfig& config, std::string trials_root,
                int cpus);

  // Creates the trial's folder and writes its params.json, picks ports no
  // other attempt of this planner holds, and fills in the config's command
  // and environment for `lease`. A later attempt of a trial with
  // checkpoints resumes from its newest one (and, under metrics_format
  // trainer_state, skips the log_history entries that checkpoint holds).
  core::Result<PlannedLaunch> Plan(const AttemptOf& attempt,
                                   const runner::DeviceLease& lease,
                                   int groups);
  // The ports of an attempt that ended are free again.
  void ReleasePorts(const std::vector<int>& ports);
  // What a restarted tuner needs to read an attempt it did not start
  // (its output files, status file, report source).
  runner::TrialLaunch AdoptionOf(core::TrialId trial, int attempt,
                                 const std::string& output_dir) const;
  // Keeps attempt `attempt`'s stdout.log and stderr.log as
  // stdout.attempt-N.log and stderr.attempt-N.log.
  void RotateLogs(core::TrialId trial, int attempt) const;

  // trials/<id>
  std::string TrialDir(core::TrialId trial) const;
  // checkpoints.dir filled in for the trial (relative: under workdir);
  // "" when the config has none.
  std::string OutputDir(core::TrialId trial, const core::Params& params) const;

 private:
  // Where its reports come from under metrics_format trainer_state.
  std::optional<runner::TrainerStateSource> TrainerStateOf(
      const std::string& output_dir) const;

  const ExperimentConfig& config_;
  std::string trials_root_;
  int cpus_;
  std::set<int> ports_;  // held by attempts not released
};

}  // namespace tuner

#endif  // TUNER_TUNER_SWEEP_LAUNCH_PLANNER_H_
