// ReportIntake: one trial's reports on their way in, before the scheduler
// judges them.
#ifndef TUNER_TUNER_SWEEP_REPORT_INTAKE_H_
#define TUNER_TUNER_SWEEP_REPORT_INTAKE_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/metrics.h"
#include "storage/records.h"
#include "tuner/sweep/report_throttle.h"

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

// What one trial's output lines make: each report's time (its time_attr,
// or under time_attr "report" its number in the attempt, snapped to a rung
// it is within 0.01 of), the reports a new attempt repeats (skipped up to
// where the earlier attempts got: they are stored), and the throttle:
// what it lets through, and what it withholds until the trial ends.
class ReportIntake {
 public:
  ReportIntake(core::TrialId trial, std::string metric, std::string time_attr)
      : trial_(trial),
        metric_(std::move(metric)),
        time_attr_(std::move(time_attr)) {}

  // The report a line's metrics make for `attempt` (seq left 0), or none:
  // a time that is nan or inf (warned about once per trial), or a report
  // the attempt repeats. `snap` rounds a time to its rung.
  std::optional<storage::ReportRecord> Take(
      core::Metrics metrics, int64_t offset, int attempt,
      const std::function<double(double)>& snap);

  // Whether the throttle stores a report arriving at `now`.
  bool Admit(ReportThrottle::Clock::time_point now) {
    return throttle_.Admit(now);
  }
  // Keeps a report the throttle refused: a judged one supersedes every
  // withheld one, any one the unjudged ones (the newest judged report,
  // then the newest after it, are left). Warns once per trial.
  void Withhold(storage::ReportRecord report, bool judged);
  // A report was stored: drops the withheld ones it supersedes.
  void Stored(bool judged);
  // What is withheld, in order, handed over (the trial ended).
  std::vector<WithheldReport> TakeWithheld();

  // A new attempt repeats its trial's reports up to `last_time`.
  void NewAttempt(std::optional<double> last_time);
  // A resumed trial: the attempt running has made `attempt_reports`
  // objective reports, and repeats those up to `replay_until`.
  void Resume(int64_t attempt_reports, std::optional<double> replay_until);
  std::optional<double> replay_until() const { return replay_until_; }

  // The names of every report it saw (stored ones too, on resume: Saw()).
  void Saw(const core::Metrics& metrics) { seen_keys_.Add(metrics); }
  const SeenKeys& seen_keys() const { return seen_keys_; }

 private:
  // Whether the report at `time` (none: without the objective) is one an
  // earlier attempt stored.
  bool Repeated(std::optional<double> time) const;

  core::TrialId trial_;
  std::string metric_;
  std::string time_attr_;
  int64_t attempt_reports_ = 0;  // objective reports in this attempt
  std::optional<double> replay_until_;
  SeenKeys seen_keys_;
  bool warned_time_ = false;
  ReportThrottle throttle_;
  std::vector<WithheldReport> withheld_;
  bool warned_flood_ = false;
};

}  // namespace tuner

#endif  // TUNER_TUNER_SWEEP_REPORT_INTAKE_H_
