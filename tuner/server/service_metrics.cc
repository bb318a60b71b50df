#include "tuner/server/service_metrics.h"

#include <cmath>

namespace tuner::server {

ServiceMetrics::Experiment& ServiceMetrics::At(const std::string& experiment,
                                               const SweepCounts& counts) {
  Experiment& e = experiments_[experiment];
  e.counts = counts;
  return e;
}

void ServiceMetrics::TrialStarted(const std::string& experiment, bool promoted,
                                  const SweepCounts& counts) {
  std::lock_guard<std::mutex> lock(mutex_);
  Experiment& e = At(experiment, counts);
  if (promoted) {
    ++e.decisions["promote"];
  } else {
    ++e.started;
  }
}

void ServiceMetrics::TrialReported(const std::string& experiment, double value,
                                   core::Mode mode,
                                   const core::Decision& decision,
                                   const SweepCounts& counts) {
  std::lock_guard<std::mutex> lock(mutex_);
  Experiment& e = At(experiment, counts);
  ++e.reports;
  for (const auto& rung : decision.rungs)
    ++e.decisions[std::string(core::ToString(rung.verdict))];
  if (std::isfinite(value) && (!e.best || core::Better(value, *e.best, mode)))
    e.best = value;
}

void ServiceMetrics::TrialEnded(const std::string& experiment,
                                core::TrialStatus status,
                                std::optional<double> seconds,
                                const SweepCounts& counts) {
  std::lock_guard<std::mutex> lock(mutex_);
  Experiment& e = At(experiment, counts);
  if (status == core::TrialStatus::kPaused) return;
  ++e.finished[std::string(core::ToString(status))];
  if (!seconds) return;
  for (size_t i = 0; i < kDurationBuckets.size(); ++i)
    if (*seconds <= kDurationBuckets[i]) ++bucket_counts_[i];
  ++duration_count_;
  duration_sum_ += *seconds;
}

void ServiceMetrics::SweepEnded(const std::string& experiment,
                                const SweepCounts& counts) {
  std::lock_guard<std::mutex> lock(mutex_);
  At(experiment, counts);
}

void ServiceMetrics::Write(PrometheusText& out) const {
  std::lock_guard<std::mutex> lock(mutex_);
  WriteCounters(out);
  WriteGauges(out);
  WriteDurations(out);
}

void ServiceMetrics::WriteCounters(PrometheusText& out) const {
  out.Family("tuner_reports_total", "counter",
             "Metric reports judged since the service started.");
  for (const auto& [name, e] : experiments_)
    out.Sample("tuner_reports_total", {{"experiment", name}}, e.reports);
  out.Family("tuner_trials_started_total", "counter",
             "Trials started since the service started (promotions not "
             "included).");
  for (const auto& [name, e] : experiments_)
    out.Sample("tuner_trials_started_total", {{"experiment", name}}, e.started);
  out.Family("tuner_trials_finished_total", "counter",
             "Trials that ended, by status, since the service started.");
  for (const auto& [name, e] : experiments_) {
    for (const char* status : {"completed", "stopped", "failed"}) {
      auto it = e.finished.find(status);
      out.Sample("tuner_trials_finished_total",
                 {{"experiment", name}, {"status", status}},
                 it == e.finished.end() ? 0 : it->second);
    }
  }
  out.Family("tuner_decisions_total", "counter",
             "Rung decisions (continue, stop, pause) and promotions since "
             "the service started.");
  for (const auto& [name, e] : experiments_) {
    for (const auto& [decision, n] : e.decisions) {
      out.Sample("tuner_decisions_total",
                 {{"experiment", name}, {"decision", decision}}, n);
    }
  }
}

void ServiceMetrics::WriteGauges(PrometheusText& out) const {
  out.Family("tuner_trials", "gauge",
             "Trials by state, for the experiments the service ran since it "
             "started.");
  for (const auto& [name, e] : experiments_) {
    const SweepCounts& c = e.counts;
    for (auto [state, n] : {std::pair{"running", c.running},
                            {"paused", c.paused},
                            {"completed", c.completed},
                            {"stopped", c.stopped},
                            {"failed", c.failed}}) {
      out.Sample("tuner_trials", {{"experiment", name}, {"state", state}}, n);
    }
  }
  out.Family("tuner_experiment_best_value", "gauge",
             "The best objective value reported (in the experiment's mode) "
             "since the service started running it.");
  for (const auto& [name, e] : experiments_) {
    if (e.best)
      out.Sample("tuner_experiment_best_value", {{"experiment", name}},
                 *e.best);
  }
}

void ServiceMetrics::WriteDurations(PrometheusText& out) const {
  const char* name = "tuner_trial_duration_seconds";
  out.Family(name, "histogram",
             "How long trials ran (completed, stopped or failed), from start "
             "to end, pauses excluded.");
  std::string bucket = std::string(name) + "_bucket";
  for (size_t i = 0; i < kDurationBuckets.size(); ++i) {
    out.Sample(bucket, {{"le", FormatSampleValue(kDurationBuckets[i])}},
               bucket_counts_[i]);
  }
  out.Sample(bucket, {{"le", "+Inf"}}, duration_count_);
  out.Sample(std::string(name) + "_sum", {}, duration_sum_);
  out.Sample(std::string(name) + "_count", {}, duration_count_);
}

}  // namespace tuner::server
