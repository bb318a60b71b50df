#include "tuner/sweep/launch_planner.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <utility>

#include "trial_runner/devices/device_env.h"
#include "trial_runner/output/trainer_state.h"
#include "tuner/config/launch_spec.h"

namespace tuner {

namespace fs = std::filesystem;

LaunchPlanner::LaunchPlanner(const ExperimentConfig& config,
                             std::string trials_root, int cpus)
    : config_(config), trials_root_(std::move(trials_root)), cpus_(cpus) {}

core::Result<PlannedLaunch> LaunchPlanner::Plan(
    const AttemptOf& attempt, const runner::DeviceLease& lease, int groups) {
  const core::Params& params = *attempt.params;
  std::string dir = TrialDir(attempt.trial);
  std::error_code ec;
  fs::create_directories(dir, ec);
  std::ofstream(dir + "/params.json") << ParamsJson(params) << "\n";
  runner::DeviceEnvOptions env_options;
  env_options.docker = config_.devices.launcher == "docker";
  env_options.trial_dir = dir;
  env_options.recipe_cache = config_.devices.recipe_cache;
  env_options.recipe_cache_mb = config_.devices.recipe_cache_mb;
  env_options.threads = std::max<int>(1, cpus_ / std::max<int>(1, groups));
  auto devices = runner::DeviceEnvironment(lease, env_options, ports_);
  if (!devices.ok()) return devices.error();
  PlannedLaunch planned;
  planned.ports = devices.value().ports;
  TrialContext context;
  context.id = attempt.trial;
  context.params = &params;
  context.trial_dir = dir;
  context.attempt = attempt.launched + 1;
  context.card_indices = runner::CardIndices(lease);
  context.devices = &devices.value();
  size_t resumed_entries = 0;  // the log_history it resumes with
  if (!config_.checkpoints.dir.empty()) {
    planned.output_dir = OutputDir(attempt.trial, params);
    auto saved = runner::ScanCheckpoints(planned.output_dir,
                                         config_.checkpoints.pattern);
    if (attempt.launched > 0 && !saved.empty()) {
      context.checkpoint = planned.resumed_from = saved.back().dir;
      resumed_entries = saved.back().log_history.size();
    }
  }
  auto request = BuildSpawnRequest(config_, context);
  if (!request.ok()) {
    ReleasePorts(planned.ports);
    return request.error();
  }
  runner::TrialLaunch& launch = planned.launch;
  launch.trial = attempt.trial;
  launch.spawn = std::move(request).value();
  launch.spawn.cpus = lease.cpus;
  launch.spawn.inherit_fds = lease.lock_fds();
  launch.timeout = config_.trial.timeout;
  launch.stop_grace = config_.trial.stop_grace;
  launch.idle_timeout = config_.trial.idle_timeout;
  launch.log_cap = config_.trial.log_cap;
  launch.status_path = AttemptStatusPath(dir, context.attempt);
  launch.metrics = MetricFormatFor(config_);
  launch.node = lease.node;
  launch.trainer_state = TrainerStateOf(planned.output_dir);
  if (launch.trainer_state) launch.trainer_state->skip = resumed_entries;
  if (env_options.docker)
    launch.cleanup = {"docker", "rm", "-f", DockerName(config_, context)};
  return planned;
}

void LaunchPlanner::ReleasePorts(const std::vector<int>& ports) {
  for (int port : ports) ports_.erase(port);
}

runner::TrialLaunch LaunchPlanner::AdoptionOf(
    core::TrialId trial, int attempt, const std::string& output_dir) const {
  std::string dir = TrialDir(trial);
  runner::TrialLaunch launch;
  launch.trial = trial;
  launch.spawn.stdout_path = dir + "/stdout.log";
  launch.spawn.stderr_path = dir + "/stderr.log";
  launch.status_path = AttemptStatusPath(dir, attempt);
  launch.metrics = MetricFormatFor(config_);
  launch.trainer_state = TrainerStateOf(output_dir);
  return launch;
}

void LaunchPlanner::RotateLogs(core::TrialId trial, int attempt) const {
  std::string dir = TrialDir(trial);
  std::string suffix = ".attempt-" + std::to_string(attempt) + ".log";
  std::error_code ec;
  fs::rename(dir + "/stdout.log", dir + "/stdout" + suffix, ec);
  fs::rename(dir + "/stderr.log", dir + "/stderr" + suffix, ec);
}

std::string LaunchPlanner::TrialDir(core::TrialId trial) const {
  return trials_root_ + "/" + std::to_string(trial);
}

std::string LaunchPlanner::OutputDir(core::TrialId trial,
                                     const core::Params& params) const {
  if (config_.checkpoints.dir.empty()) return "";
  TrialContext context;
  context.id = trial;
  context.params = &params;
  context.trial_dir = TrialDir(trial);
  // Relative: the trial's, whose working directory is workdir.
  fs::path dir = ExpandForTrial(config_, context, config_.checkpoints.dir);
  return dir.is_absolute() ? dir.string()
                           : (fs::path(config_.workdir) / dir).string();
}

std::optional<runner::TrainerStateSource> LaunchPlanner::TrainerStateOf(
    const std::string& output_dir) const {
  if (config_.metrics_format != "trainer_state") return std::nullopt;
  return runner::TrainerStateSource{output_dir, config_.checkpoints.pattern, 0};
}

}  // namespace tuner
