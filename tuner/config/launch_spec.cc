#include "tuner/config/launch_spec.h"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

#include "tuner/base/params_text.h"
#include "tuner/config/command_template.h"

namespace tuner {

namespace {

using Lookup = std::function<std::optional<std::string>(std::string_view)>;

Lookup MakeLookup(const ExperimentConfig& config, const TrialContext& trial,
                  bool quote) {
  return [&config, &trial, quote](std::string_view name) {
    std::optional<std::string> value;
    if (name == "max_t" && config.scheduler.max_t) {
      value = core::FormatDouble(*config.scheduler.max_t);
    } else if (name == "trial_id") {
      value = std::to_string(trial.id);
    } else if (name == "trial_dir") {
      value = trial.trial_dir;
    } else if (name == "checkpoint") {
      value = trial.checkpoint;
    } else if (name == "devices" || name == "num_devices" ||
               name == "master_port") {
      const runner::TrialDevices* d = trial.devices;
      value = !d                      ? std::string()
              : name == "devices"     ? d->ids
              : name == "num_devices" ? std::to_string(d->count)
                                      : std::to_string(d->master_port);
    } else {
      for (const auto& [key, v] : *trial.params) {
        if (key == name) value = core::FormatParamValue(v);
      }
      bool param =
          std::any_of(config.space.params.begin(), config.space.params.end(),
                      [&](const auto& p) { return p.name == name; });
      if (!value && param) value = "";  // inactive conditional param
    }
    if (value && quote) value = ShellQuote(*value);
    return value;
  };
}

bool UsesParam(std::string_view word, const std::string& name) {
  auto names = Placeholders(word);
  if (!names.ok()) return false;
  return std::find(names.value().begin(), names.value().end(), name) !=
         names.value().end();
}

// Whether `text` names a conditional param that this trial did not sample.
bool NamesInactiveParam(std::string_view text, const ExperimentConfig& config,
                        const TrialContext& trial) {
  for (const auto& spec : config.space.params) {
    if (!spec.when || !UsesParam(text, spec.name)) continue;
    bool active =
        std::any_of(trial.params->begin(), trial.params->end(),
                    [&](const auto& p) { return p.first == spec.name; });
    if (!active) return true;
  }
  return false;
}

bool HasPlaceholder(std::string_view word) {
  auto names = Placeholders(word);
  return !names.ok() || !names.value().empty();
}

// `docker run` around the trial's argv; each env var goes in by name.
std::vector<std::string> DockerArgv(const ExperimentConfig& config,
                                    const TrialContext& trial,
                                    const runner::SpawnRequest& request) {
  const DevicesSpec& d = config.devices;
  std::vector<std::string> argv = {
      "docker",
      "run",
      "--rm",
      "--init",
      "--name",
      DockerName(config, trial),
      "--runtime=habana",
      "--net=host",
      "--ipc=host",
      "-e",
      "HABANA_VISIBLE_DEVICES=" + trial.card_indices};
  for (const auto& [key, value] : request.env) {
    argv.insert(argv.end(), {"-e", key});
  }
  argv.insert(argv.end(),
              {"-v", trial.trial_dir + ":" + trial.trial_dir, "-v",
               config.workdir + ":" + config.workdir, "-w", config.workdir});
  argv.insert(argv.end(), d.docker_options.begin(), d.docker_options.end());
  argv.push_back(d.image);
  argv.insert(argv.end(), request.argv.begin(), request.argv.end());
  return argv;
}

// The command's words; with `shell`, split at whitespace (good enough to
// spot a launcher and its flags).
std::vector<std::string> CommandWords(const ExperimentConfig& config) {
  auto words = SplitCommand(config.command);
  if (!config.shell && words.ok()) return words.value();
  std::vector<std::string> out;
  std::string word;
  for (char c : config.command + " ") {
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (!word.empty()) out.push_back(word);
      word.clear();
    } else {
      word += c;
    }
  }
  return out;
}

bool IsProgram(const std::string& word, std::string_view name) {
  return word == name || word.ends_with("/" + std::string(name));
}

}  // namespace

std::vector<std::string> LauncherWarnings(const ExperimentConfig& config) {
  std::vector<std::string> warnings;
  std::vector<std::string> words = CommandWords(config);
  auto has = [&words](auto&& pred) {
    return std::any_of(words.begin(), words.end(), pred);
  };
  if (has([](const std::string& w) { return w == "--standalone"; })) {
    warnings.push_back(
        "command: torchrun --standalone: with older torch (1.13) every "
        "trial's rendezvous store binds port 29400, so parallel trials "
        "collide; leave it out (each trial gets its own PET_MASTER_PORT)");
  }
  bool deepspeed = has([](const std::string& w) {
    return IsProgram(w, "deepspeed") || w == "deepspeed.launcher.runner";
  });
  bool port = has([](const std::string& w) {
    return w.starts_with("--master_port") || w.starts_with("--master-port");
  });
  if (deepspeed && !port) {
    warnings.push_back(
        "command: deepspeed without --master_port gives every trial port "
        "29500, so parallel trials collide; add --master_port "
        "{master_port}");
  }
  return warnings;
}

std::string ExpandForTrial(const ExperimentConfig& config,
                           const TrialContext& trial, std::string_view text) {
  return Fill(text, MakeLookup(config, trial, false));
}

runner::MetricFormat MetricFormatFor(const ExperimentConfig& config) {
  runner::MetricFormat format;
  format.enabled = config.metrics_format != "trainer_state";
  format.objective = config.metric;
  format.regex = config.metrics_regex;
  if (config.metrics_format == "katib")
    format.extra = runner::MetricFormat::Extra::kKatib;
  if (config.metrics_format == "regex")
    format.extra = runner::MetricFormat::Extra::kRegex;
  return format;
}

std::string DockerName(const ExperimentConfig& config,
                       const TrialContext& trial) {
  return "tuner-" + config.name + "-" + std::to_string(trial.id) + "-" +
         std::to_string(trial.attempt);
}

core::Result<runner::SpawnRequest> BuildSpawnRequest(
    const ExperimentConfig& config, const TrialContext& trial) {
  runner::SpawnRequest request;
  if (config.shell) {
    request.argv = {"/bin/sh", "-c",
                    Fill(config.command, MakeLookup(config, trial, true))};
  } else {
    auto words = SplitCommand(config.command);
    if (!words.ok()) return words.error();
    Lookup lookup = MakeLookup(config, trial, false);
    for (const auto& word : words.value()) {
      // `--momentum={momentum}` is left out when momentum is inactive.
      if (NamesInactiveParam(word, config, trial)) continue;
      request.argv.push_back(Fill(word, lookup));
    }
  }
  if (!trial.checkpoint.empty() && !config.checkpoints.resume.empty()) {
    auto words = SplitCommand(config.checkpoints.resume);
    if (!words.ok()) return words.error();
    for (const auto& word : words.value()) {
      std::string filled = Fill(word, MakeLookup(config, trial, config.shell));
      if (config.shell) {
        request.argv.back() += " " + filled;
      } else {
        request.argv.push_back(filled);
      }
    }
  }
  request.cwd = config.workdir;
  request.stdout_path = trial.trial_dir + "/stdout.log";
  request.stderr_path = trial.trial_dir + "/stderr.log";
  request.env = {{"TUNER_TRIAL_ID", std::to_string(trial.id)},
                 {"TUNER_TRIAL_DIR", trial.trial_dir},
                 {"TUNER_EXPERIMENT", config.name},
                 {"PYTHONUNBUFFERED", "1"}};
  if (trial.devices) {
    request.env.insert(request.env.end(), trial.devices->env.begin(),
                       trial.devices->env.end());
  }
  Lookup lookup = MakeLookup(config, trial, false);
  for (const auto& [key, value] : config.env) {
    if (NamesInactiveParam(value, config, trial)) continue;
    request.env.emplace_back(key, Fill(value, lookup));
  }
  if (config.devices.launcher == "docker") {
    request.argv = DockerArgv(config, trial, request);
  }
  return request;
}

std::string AttemptStatusPath(const std::string& trial_dir, int attempt) {
  return trial_dir + "/status.attempt-" + std::to_string(attempt) + ".json";
}

std::string ParamsJson(const core::Params& params) {
  // Params stored by older versions may hold text that is not UTF-8.
  return ParamsObject(params).dump(
      2, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

std::string FlagsFor(const ExperimentConfig& config,
                     const core::Params& params) {
  auto words = SplitCommand(config.command);
  std::vector<std::string> argv =
      words.ok() ? words.value() : std::vector<std::string>();
  TrialContext trial;
  trial.params = &params;
  trial.trial_dir = "{trial_dir}";
  Lookup lookup = MakeLookup(config, trial, false);
  std::string out;
  auto add = [&out](const std::string& word) {
    out += (out.empty() ? "" : " ") + ShellQuoteWord(word);
  };
  for (const auto& [name, value] : params) {
    bool found = false;
    for (size_t i = 0; i < argv.size() && !found; ++i) {
      if (!UsesParam(argv[i], name)) continue;
      found = true;
      if (i > 0 && argv[i - 1].starts_with("-") &&
          !HasPlaceholder(argv[i - 1])) {
        add(argv[i - 1]);
      }
      add(Fill(argv[i], lookup));
    }
    if (!found) {
      add("--" + name);
      add(core::FormatParamValue(value));
    }
  }
  return out;
}

}  // namespace tuner
