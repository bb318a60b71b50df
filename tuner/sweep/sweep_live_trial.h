// LiveTrial: what a sweep keeps about a trial it has started and
// not ended yet (running, or paused at a rung). Private to tuner/sweep/.
#ifndef TUNER_TUNER_SWEEP_SWEEP_LIVE_TRIAL_H_
#define TUNER_TUNER_SWEEP_SWEEP_LIVE_TRIAL_H_

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/trial.h"
#include "trial_runner/devices/device_pool.h"
#include "tuner/config/experiment_config.h"
#include "tuner/sweep/report_intake.h"
#include "tuner/sweep/trial_life.h"

namespace tuner {

struct LiveTrial {
  LiveTrial(core::TrialId trial, const ExperimentConfig& config)
      : id(trial), intake(trial, config.metric, config.time_attr) {}

  core::TrialId id = 0;
  int64_t index = 0;
  core::Params params;
  std::optional<runner::DeviceLease> lease;  // while it runs
  std::vector<int> ports;                    // its MASTER_PORT and the like
  int64_t lease_row = 0;                     // storage's id of the lease
  int attempt = 0;                           // launches, promotions included
  int failures = 0;                          // failed attempts retried so far
  int device_retries = 0;                    // relaunches after a busy device
  TrialLife life;                    // its phase: queued, running, pausing, ...
  int64_t seq = 0;                   // reports stored, all attempts
  int64_t judged = 0;                // reports judged, all attempts
  std::optional<double> last_time;   // of the last judged report
  std::optional<double> last_value;  // its objective
  std::optional<double> stop_time;   // the time it was stopped or paused at
  std::optional<int64_t> exit_code;
  // When its process ended, for an attempt an earlier tuner started (it may
  // have ended while no tuner ran); else unset: it ended when recorded.
  std::optional<double> exited_at;
  std::string reason;
  ReportIntake intake;       // its reports' times, repeats, throttle
  std::string output_dir;    // checkpoints.dir, filled in
  std::string resumed_from;  // the checkpoint this attempt resumed

  // The time its row shows once it ends: stop_time, unless the report it
  // was stopped on had no finite objective (never a trial's value): then
  // the row keeps the time of its last finite one.
  std::optional<double> EndTime() const {
    if (last_value && !std::isfinite(*last_value)) return std::nullopt;
    return stop_time;
  }
};

}  // namespace tuner

#endif  // TUNER_TUNER_SWEEP_SWEEP_LIVE_TRIAL_H_
