// Simulate: runs an experiment to its end in simulated time, every trial
// replaying a row of a curve table, through the real Sweep, scheduler,
// searcher and store.
#ifndef TUNER_TUNER_SIM_SIMULATION_H_
#define TUNER_TUNER_SIM_SIMULATION_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/result.h"
#include "storage/trial_store.h"
#include "tuner/config/experiment_config.h"
#include "tuner/sim/curve_table.h"
#include "tuner/sweep/sweep.h"

namespace tuner::sim {

struct SimulationOptions {
  int workers = 1;  // identical slots, one trial each
  // Where the sweep writes its trials' params.json; empty: a temporary
  // directory, removed afterwards.
  std::string trials_root;
  // The stored times (created_at, leases, ...) are this Unix time plus
  // the simulated seconds; none: the time the simulation starts.
  std::optional<double> epoch;
  // SIGINT and SIGTERM interrupt the simulation (its experiment ends
  // interrupted; SimulationResult::signal says which). Their handlers are
  // the process's while it runs: for a CLI.
  bool stop_on_signals = false;
  // Ends the simulation (its trials killed, the experiment interrupted)
  // before the first event past this simulated second: for a benchmark
  // that looks no further. None: it runs to the sweep's end.
  std::optional<double> until_s;
};

struct SimulationResult {
  storage::ExperimentId experiment = 0;
  SweepOutcome outcome = SweepOutcome::kRunning;
  std::string error;           // when the sweep failed
  std::optional<double> best;  // among trials that reached max_t
  std::optional<core::TrialId> best_trial;
  double makespan_s = 0;  // simulated seconds until the end
  double device_s = 0;    // simulated seconds trials ran
  int64_t trials = 0;     // trials started
  double max_t = 0;       // what "reached max_t" meant
  // (simulated second, best so far): each time `best` improved.
  std::vector<std::pair<double, double>> trajectory;
  int64_t truncated_ends = 0;  // see CurveRow::truncated
  int signal = 0;              // the signal that interrupted it, if any
};

// Registers `config` (named config.name: it must not exist in `store`) and
// runs it with `options.workers` slots. `config_json` is stored with it
// (tuner simulate marks it simulated). Fails on a table that does not fit
// the config (see RowPicker), a sweep that cannot start, or a store that
// cannot commit. The store commits in groups while it runs (a crash loses
// the last ones) and is flushed before this returns.
core::Result<SimulationResult> Simulate(const ExperimentConfig& config,
                                        const std::string& config_json,
                                        const CurveTable& table,
                                        storage::TrialStore& store,
                                        const SimulationOptions& options);

}  // namespace tuner::sim

#endif  // TUNER_TUNER_SIM_SIMULATION_H_
