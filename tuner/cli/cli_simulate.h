// `tuner simulate`: an experiment replayed in simulated time on a table of
// learning curves (or on a stored experiment's reports).
#ifndef TUNER_TUNER_CLI_CLI_SIMULATE_H_
#define TUNER_TUNER_CLI_CLI_SIMULATE_H_

#include <cstdint>
#include <optional>
#include <string>

#include "tuner/cli/cli.h"

namespace tuner::cli {

struct SimulateOptions {
  std::string config_path;
  std::string table_path;       // --table
  std::string from_experiment;  // --from-experiment (instead of --table)
  int workers = 1;
  std::optional<int64_t> seed;         // overrides searcher.seed (>= 0)
  ConfigOverrides overrides;           // --set, --name: as `tuner run`'s
  std::optional<std::string> db_path;  // else the config's, else tuner.db
  std::string format = "table";        // table | json
};

// Runs the simulation, prints its summary and returns the exit code: 0,
// 1 when the sweep failed, 2 for bad input (config, table, a taken name).
int Simulate(const SimulateOptions& options);

}  // namespace tuner::cli

#endif  // TUNER_TUNER_CLI_CLI_SIMULATE_H_
