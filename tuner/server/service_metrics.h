// ServiceMetrics: what GET /metrics counts, kept in the service's memory.
//
// Why memory and not SQLite: a scrape must stay cheap on a database of a
// million trials, and counting trials there is a scan per experiment. So
// the sweeps' own events (EventProgress) feed these counters as they
// happen, and a scrape only copies them. Counters start at 0 when the
// service starts (Prometheus' rate() and increase() handle the reset); the
// trial gauges cover the experiments this service ran since it started.
#ifndef TUNER_TUNER_SERVER_SERVICE_METRICS_H_
#define TUNER_TUNER_SERVER_SERVICE_METRICS_H_

#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "core/trial.h"
#include "tuner/server/prometheus_text.h"
#include "tuner/sweep/progress.h"

namespace tuner::server {

// Fed on the sweeps' thread, read on the HTTP threads: thread-safe.
class ServiceMetrics {
 public:
  // Upper bounds of the trial duration histogram's buckets, in seconds:
  // from a second to a week.
  static constexpr std::array<double, 14> kDurationBuckets = {
      1,    10,   30,    60,    300,   600,    1800,
      3600, 7200, 14400, 28800, 86400, 172800, 604800};

  // A trial started (`promoted`: a paused one runs again).
  void TrialStarted(const std::string& experiment, bool promoted,
                    const SweepCounts& counts);
  // A judged report: `value` counts toward the best in `mode` when finite;
  // each rung of `decision` counts one decision of its verdict.
  void TrialReported(const std::string& experiment, double value,
                     core::Mode mode, const core::Decision& decision,
                     const SweepCounts& counts);
  // A trial ended (paused included); `seconds` it ran, when known, goes to
  // the duration histogram for completed, stopped and failed trials.
  void TrialEnded(const std::string& experiment, core::TrialStatus status,
                  std::optional<double> seconds, const SweepCounts& counts);
  void SweepEnded(const std::string& experiment, const SweepCounts& counts);

  // Every family above, with HELP and TYPE lines.
  void Write(PrometheusText& out) const;

 private:
  struct Experiment {
    int64_t reports = 0;
    int64_t started = 0;
    std::map<std::string, int64_t> finished;   // by status
    std::map<std::string, int64_t> decisions;  // by verdict
    std::optional<double> best;
    SweepCounts counts;
  };
  Experiment& At(const std::string& experiment, const SweepCounts& counts);
  void WriteCounters(PrometheusText& out) const;
  void WriteGauges(PrometheusText& out) const;
  void WriteDurations(PrometheusText& out) const;

  mutable std::mutex mutex_;  // guards everything below
  std::map<std::string, Experiment> experiments_;
  std::array<int64_t, kDurationBuckets.size()> bucket_counts_{};
  int64_t duration_count_ = 0;
  double duration_sum_ = 0;
};

}  // namespace tuner::server

#endif  // TUNER_TUNER_SERVER_SERVICE_METRICS_H_
