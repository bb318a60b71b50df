#include "tuner/sim/replay_table.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <utility>

#include "core/printable.h"
#include "tuner/base/params_text.h"

namespace tuner::sim {

namespace {

using Json = nlohmann::json;

// (trial, attempt) -> when its lease was taken.
using LeaseStarts = std::map<std::pair<core::TrialId, int64_t>, double>;

core::Result<LeaseStarts> ReadLeaseStarts(storage::TrialStore& store,
                                          storage::ExperimentId experiment) {
  auto leases = store.leases().List(experiment);
  if (!leases.ok()) return leases.error();
  LeaseStarts starts;
  for (const auto& lease : leases.value())
    starts.emplace(std::make_pair(lease.trial, lease.attempt),
                   lease.acquired_at);
  return starts;
}

// Builds a trial's curve from its reports, in sequence. Every report at a
// step counts: a report with the time of the step before joins it (a
// Trainer's training-loss line and eval line of one epoch), one without a
// time joins the next step, and a later value of a key wins. A report
// whose time goes back (a retry repeating its reports) is left out.
class CurveBuilder {
 public:
  CurveBuilder(core::TrialId trial, const std::string& time_attr,
               const LeaseStarts& leases)
      : trial_(trial), time_attr_(time_attr), leases_(leases) {}

  // `at`: when the report was stored.
  void Add(const storage::ReportRecord& report, double at) {
    std::optional<double> time = TimeOf(report);
    if (time && std::isfinite(*time) && *time == previous_time_ &&
        report.attempt == previous_attempt_) {
      CurveStep& step = steps_.back();
      core::MergeMetrics(step.metrics, report.metrics);
      step.seconds += std::max(0.0, at - previous_at_);
      previous_at_ = at;
      return;
    }
    if (!time || !std::isfinite(*time) || *time <= previous_time_) {
      if (!time) core::MergeMetrics(pending_, report.metrics);
      return;
    }
    double start = previous_at_;
    if (report.attempt != previous_attempt_) {
      auto lease = leases_.find({trial_, report.attempt});
      start = lease != leases_.end() ? lease->second : at;
    }
    core::MergeMetrics(pending_, report.metrics);
    core::SetMetric(pending_, time_attr_, *time);
    steps_.push_back({std::move(pending_), std::max(0.0, at - start)});
    pending_.clear();
    previous_time_ = *time;
    previous_at_ = at;
    previous_attempt_ = report.attempt;
  }

  std::vector<CurveStep> Take() { return std::move(steps_); }

 private:
  // Under `report` a step is a report of the objective, numbered as the
  // sweep numbers them.
  std::optional<double> TimeOf(const storage::ReportRecord& report) const {
    if (time_attr_ != "report")
      return core::FindMetric(report.metrics, time_attr_);
    if (!report.value) return std::nullopt;
    return static_cast<double>(steps_.size() + 1);
  }

  core::TrialId trial_;
  const std::string& time_attr_;
  const LeaseStarts& leases_;
  std::vector<CurveStep> steps_;
  core::Metrics pending_;  // reports without a time, for the next step
  double previous_time_ = -INFINITY;
  double previous_at_ = 0;
  int64_t previous_attempt_ = 0;
};

// The trial's curve from its reports; `when` gives each report's stored
// time by sequence number.
core::Result<CurveRow> RowOf(storage::TrialStore& store,
                             const storage::TrialRecord& trial,
                             const std::string& time_attr,
                             const std::map<int64_t, double>& when,
                             const LeaseStarts& leases) {
  auto reports = store.reports().List(trial.id);
  if (!reports.ok()) return reports.error();
  CurveRow row;
  row.id = "trial " + std::to_string(trial.id);
  row.config = ParamsObject(trial.params);
  row.diverged = trial.status == core::TrialStatus::kFailed;
  CurveBuilder curve(trial.id, time_attr, leases);
  for (const auto& report : reports.value()) {
    auto at = when.find(report.seq);
    if (at != when.end()) curve.Add(report, at->second);
  }
  row.steps = curve.Take();
  return row;
}

}  // namespace

core::Result<CurveTable> TableFromExperiment(storage::TrialStore& store,
                                             const std::string& name,
                                             const std::string& time_attr) {
  auto experiment = store.experiments().Find(name);
  if (!experiment.ok()) return experiment.error();
  if (!experiment.value())
    return core::NotFound("no experiment " + core::QuotedInput(name) +
                          " in the database");
  if (experiment.value()->status == core::ExperimentStatus::kRunning) {
    return core::InvalidArgument(
        "experiment '" + name +
        "' is still running (or its tuner died: resume it first); replay it "
        "when it has ended");
  }
  auto trials = store.trials().List(experiment.value()->id);
  if (!trials.ok()) return trials.error();
  auto curves = store.reports().ListCurves(experiment.value()->id);
  if (!curves.ok()) return curves.error();
  std::map<core::TrialId, std::map<int64_t, double>> when;
  for (const auto& point : curves.value())
    when[point.trial][point.seq] = point.created_at;
  auto leases = ReadLeaseStarts(store, experiment.value()->id);
  if (!leases.ok()) return leases.error();
  CurveTable table;
  table.source = "experiment '" + name + "'";
  double longest = 0;
  for (const auto& trial : trials.value()) {
    auto row = RowOf(store, trial, time_attr, when[trial.id], leases.value());
    if (!row.ok()) return row.error();
    if (row.value().steps.empty()) continue;
    if (auto past = StepPastTimeBound(row.value().steps)) {
      return core::InvalidArgument(
          table.source + ": trial " + std::to_string(trial.id) + ", step " +
          std::to_string(*past + 1) + ": " + TimeBoundMessage());
    }
    auto last = core::FindMetric(row.value().steps.back().metrics, time_attr);
    longest = std::max(longest, last.value_or(0));
    table.rows.push_back(std::move(row).value());
  }
  if (table.rows.empty()) {
    return core::InvalidArgument("experiment '" + name +
                                 "' has no trial with reports carrying '" +
                                 time_attr + "'");
  }
  double max_t = experiment.value()->max_t.value_or(longest);
  for (auto& row : table.rows) {
    auto last = core::FindMetric(row.steps.back().metrics, time_attr);
    row.truncated = !row.diverged && last.value_or(0) < max_t;
  }
  return table;
}

}  // namespace tuner::sim
