// Sweep::LiveTrial: what a sweep keeps about a trial it has started and
// not ended yet (running, or paused at a rung). Private to sweep*.cc.
#ifndef TUNER_TUNER_SWEEP_SWEEP_LIVE_TRIAL_H_
#define TUNER_TUNER_SWEEP_SWEEP_LIVE_TRIAL_H_

#include <chrono>
#include <cmath>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "tuner/sweep/report_throttle.h"
#include "tuner/sweep/sweep.h"
#include "tuner/sweep/trial_life.h"

namespace tuner {

// The metric names of a trial's reports (for the hint of a trial that
// never reported its objective): every name seen, in bounded memory.
class SeenKeys {
 public:
  // At most this many are kept: the first ones in sorted order.
  static constexpr size_t kMax = 40;
  void Add(const core::Metrics& metrics);
  bool empty() const { return keys_.empty(); }
  // "epoch, eval_acc, loss" (sorted), with ", ... (more than kMax)" when
  // names were left out.
  std::string Text() const;

 private:
  std::set<std::string> keys_;
  bool more_ = false;
};

// A report over the throttle, stored when the trial ends (newest only).
struct WithheldReport {
  storage::ReportRecord report;
  bool judged = false;  // the scheduler saw it (and took no decision)
};

struct Sweep::LiveTrial {
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
  int64_t attempt_reports = 0;       // objective reports in this attempt
  std::optional<double> last_time;   // of the last judged report
  std::optional<double> last_value;  // its objective
  std::optional<double> replay_until;  // a retry repeats reports up to here
  std::optional<double> stop_time;     // the time it was stopped or paused at
  std::optional<int64_t> exit_code;
  // When its process ended, for an attempt an earlier tuner started (it may
  // have ended while no tuner ran); else unset: it ended when recorded.
  std::optional<double> exited_at;
  std::string reason;
  SeenKeys seen_keys;        // of all its reports, for error hints
  bool warned_time = false;  // a non-finite time_attr was warned about
  // Reports in a tight loop (ReportThrottle): the newest withheld judged
  // report, then the newest withheld one after it.
  ReportThrottle throttle;
  std::vector<WithheldReport> withheld;
  bool warned_flood = false;
  // Checkpoints (sweep_checkpoints.cc).
  std::string output_dir;  // checkpoints.dir, filled in
  // Pausing (or resuming): the rung whose checkpoint it waits for before
  // it is stopped, and until when.
  std::optional<double> pause_at;
  std::chrono::steady_clock::time_point pause_deadline;
  size_t state_entries = 0;  // log_history entries fed so far
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
