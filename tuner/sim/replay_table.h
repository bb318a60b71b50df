// A curve table made of a stored experiment (`tuner simulate
// --from-experiment`): what-if replays of the user's own sweeps.
#ifndef TUNER_TUNER_SIM_REPLAY_TABLE_H_
#define TUNER_TUNER_SIM_REPLAY_TABLE_H_

#include <string>

#include "core/result.h"
#include "storage/trial_store.h"
#include "tuner/sim/curve_table.h"

namespace tuner::sim {

// One row per trial that reported: its parameters as `config`, its
// reports (by sequence) as the curve. Every report at a step counts: the
// reports with one value of `time_attr` (a Trainer's loss line and eval
// line of an epoch) make one step, their metrics merged, a later value of
// a key winning; a report without `time_attr` joins the next step; one
// whose time goes back is left out. Under `report` a step is a report of
// the objective, numbered (its "report" metric) as the sweep numbers them.
// A step's seconds are the time since the step before it ended, or since
// the attempt's lease for an attempt's first step (so the time a paused
// trial waited is not counted). A trial that stopped short of the
// experiment's max_t (or of the longest curve) is marked truncated, one
// that failed diverged. Fails when the experiment is unknown or none of
// its trials reported.
core::Result<CurveTable> TableFromExperiment(storage::TrialStore& store,
                                             const std::string& name,
                                             const std::string& time_attr);

}  // namespace tuner::sim

#endif  // TUNER_TUNER_SIM_REPLAY_TABLE_H_
