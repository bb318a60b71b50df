// Running a sweep from the CLI (`tuner run`, `tuner resume`): devices, the
// tuner's lock, signals, the exit code. Internal to the CLI verbs.
#ifndef TUNER_TUNER_CLI_CLI_SWEEP_H_
#define TUNER_TUNER_CLI_CLI_SWEEP_H_

#include <string>

#include "storage/trial_store.h"
#include "tuner/config/experiment_config.h"

namespace tuner::cli {

// Runs `config` to its end (or to SIGINT/SIGTERM: a second one kills) and
// returns the exit code. With `resume`, takes up that stored experiment
// instead of registering a new one. `quiet`: no progress but the final
// summary line.
int RunSweep(const ExperimentConfig& config, const std::string& config_json,
             const std::string& db_path, storage::TrialStore& store,
             const storage::ExperimentRecord* resume = nullptr,
             bool quiet = false);

}  // namespace tuner::cli

#endif  // TUNER_TUNER_CLI_CLI_SWEEP_H_
