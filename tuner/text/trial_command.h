// The command line of a stored trial, to run it again by hand.
#ifndef TUNER_TUNER_TEXT_TRIAL_COMMAND_H_
#define TUNER_TUNER_TEXT_TRIAL_COMMAND_H_

#include <string>

#include "core/result.h"
#include "storage/records.h"
#include "tuner/config/experiment_config.h"

namespace tuner {

// `cd WORKDIR && COMMAND`, ready to paste into a shell: the config's
// command template filled as the sweep filled it for `trial` (its params,
// {trial_id}, {trial_dir} = `trial_dir`, {max_t}), each word shell-quoted;
// with `shell: true`, the command /bin/sh -c ran. Device placeholders
// ({devices}, {num_devices}, {master_port}) are empty (no lease), the
// config's `env` and a docker launcher are left out. Fails only on a
// command template the config loader would have refused.
core::Result<std::string> TrialCommandLine(const ExperimentConfig& config,
                                           const storage::TrialRecord& trial,
                                           const std::string& trial_dir);

}  // namespace tuner

#endif  // TUNER_TUNER_TEXT_TRIAL_COMMAND_H_
