#include "tuner/text/trial_command.h"

#include "tuner/config/command_template.h"
#include "tuner/config/launch_spec.h"

namespace tuner {

core::Result<std::string> TrialCommandLine(const ExperimentConfig& config,
                                           const storage::TrialRecord& trial,
                                           const std::string& trial_dir) {
  ExperimentConfig plain = config;
  plain.devices.launcher = "process";  // the trial's command, not docker's
  TrialContext context;
  context.id = trial.id;
  context.params = &trial.params;
  context.trial_dir = trial_dir;
  auto request = BuildSpawnRequest(plain, context);
  if (!request.ok()) return request.error();
  const auto& argv = request.value().argv;
  std::string command;
  if (config.shell && argv.size() == 3) {
    command = argv[2];  // /bin/sh -c COMMAND: values are quoted already
  } else {
    for (const auto& word : argv) {
      command += (command.empty() ? "" : " ") + ShellQuoteWord(word);
    }
  }
  return "cd " + ShellQuoteWord(config.workdir) + " && " + command;
}

}  // namespace tuner
