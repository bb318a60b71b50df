// What one trial runs: its argv and env, from the config and its params.
#ifndef TUNER_TUNER_CONFIG_LAUNCH_SPEC_H_
#define TUNER_TUNER_CONFIG_LAUNCH_SPEC_H_

#include <string>
#include <vector>

#include "core/param_value.h"
#include "core/result.h"
#include "core/trial.h"
#include "trial_runner/devices/device_env.h"
#include "trial_runner/output/metric_stream.h"
#include "trial_runner/processes/spawn.h"
#include "tuner/config/experiment_config.h"

namespace tuner {

struct TrialContext {
  core::TrialId id = 0;
  const core::Params* params = nullptr;
  std::string trial_dir;                          // absolute
  const runner::TrialDevices* devices = nullptr;  // its lease; may be null
  std::string card_indices;  // habana under docker: HABANA_VISIBLE_DEVICES
  int attempt = 1;
  std::string checkpoint;  // resume from it: checkpoints.resume is appended
};

// The trial's command with every placeholder filled. Without `shell`, the
// template is split into words first and each word is filled, so a value
// is always exactly one argument and never shell syntax; with `shell`, the
// values are shell-quoted into `/bin/sh -c`. The env is: the tuner's own,
// then TUNER_TRIAL_ID, TUNER_TRIAL_DIR, TUNER_EXPERIMENT, PYTHONUNBUFFERED=1,
// then the devices' env, then the config's `env` (filled too). With
// launcher docker the command runs in `docker run` (see DockerName), which
// gets every one of those variables by name and HABANA_VISIBLE_DEVICES.
core::Result<runner::SpawnRequest> BuildSpawnRequest(
    const ExperimentConfig& config, const TrialContext& trial);

// `text` with the trial's placeholders filled ({trial_dir}, params, …).
std::string ExpandForTrial(const ExperimentConfig& config,
                           const TrialContext& trial, std::string_view text);

// How the config's trials carry metrics on stdout (metrics_format).
runner::MetricFormat MetricFormatFor(const ExperimentConfig& config);

// The container name of a trial's attempt under launcher docker.
std::string DockerName(const ExperimentConfig& config,
                       const TrialContext& trial);

// One-line warnings about a command whose parallel trials would collide on
// a fixed port although each trial has its own (PET_MASTER_PORT,
// MASTER_PORT, {master_port}): torchrun's `--standalone` (older torch, as
// 1.13, binds its rendezvous store to port 29400 in every trial), and
// `deepspeed` without `--master_port` (it hands its ranks MASTER_PORT=29500
// whatever the environment says). Empty when there is nothing to say.
std::vector<std::string> LauncherWarnings(const ExperimentConfig& config);

// Where the shim of a trial's attempt (1, 2, ...) writes how it ended. One
// file per attempt: a tuner that adopts attempt N never reads the status
// attempt N - 1 left (the tuner died after recording attempt N's launch,
// before it started).
std::string AttemptStatusPath(const std::string& trial_dir, int attempt);

// The params as a JSON object (written to the trial dir as params.json).
std::string ParamsJson(const core::Params& params);

// The command-line flags that carry `params` in the config's command
// ("--lr 0.01 --hidden 64"); params the command does not use are given as
// --name value.
std::string FlagsFor(const ExperimentConfig& config,
                     const core::Params& params);

}  // namespace tuner

#endif  // TUNER_TUNER_CONFIG_LAUNCH_SPEC_H_
