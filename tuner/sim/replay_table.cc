#include "tuner/sim/replay_table.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "tuner/base/params_text.h"

namespace tuner::sim {

namespace {

using Json = nlohmann::json;

// (trial, attempt) -> when its lease was taken.
using LeaseStarts = std::map<std::pair<core::TrialId, int64_t>, double>;

core::Result<LeaseStarts> ReadLeaseStarts(storage::TrialStore& store,
                                          storage::ExperimentId experiment) {
  auto leases = store.ListLeases(experiment);
  if (!leases.ok()) return leases.error();
  LeaseStarts starts;
  for (const auto& lease : leases.value())
    starts.emplace(std::make_pair(lease.trial, lease.attempt),
                   lease.acquired_at);
  return starts;
}

// The trial's curve from its reports; `when` gives each report's stored
// time by sequence number.
core::Result<CurveRow> RowOf(storage::TrialStore& store,
                             const storage::TrialRecord& trial,
                             const std::string& time_attr,
                             const std::map<int64_t, double>& when,
                             const LeaseStarts& leases) {
  auto reports = store.ListReports(trial.id);
  if (!reports.ok()) return reports.error();
  CurveRow row;
  row.id = "trial " + std::to_string(trial.id);
  row.config = ParamsObject(trial.params);
  row.diverged = trial.status == core::TrialStatus::kFailed;
  double previous_time = -INFINITY;
  double previous_at = 0;
  int64_t previous_attempt = 0;
  for (const auto& report : reports.value()) {
    auto time = core::FindMetric(report.metrics, time_attr);
    if (time_attr == "report") time = static_cast<double>(row.steps.size() + 1);
    auto at = when.find(report.seq);
    if (!time || !std::isfinite(*time) || *time <= previous_time ||
        at == when.end()) {
      continue;
    }
    double start = previous_at;
    if (report.attempt != previous_attempt) {
      auto lease = leases.find({trial.id, report.attempt});
      start = lease != leases.end() ? lease->second : at->second;
    }
    row.steps.push_back({report.metrics, std::max(0.0, at->second - start)});
    previous_time = *time;
    previous_at = at->second;
    previous_attempt = report.attempt;
  }
  return row;
}

}  // namespace

core::Result<CurveTable> TableFromExperiment(storage::TrialStore& store,
                                             const std::string& name,
                                             const std::string& time_attr) {
  auto experiment = store.FindExperiment(name);
  if (!experiment.ok()) return experiment.error();
  if (!experiment.value())
    return core::NotFound("no experiment '" + name + "' in the database");
  if (experiment.value()->status == "running") {
    return core::InvalidArgument(
        "experiment '" + name +
        "' is still running (or its tuner died: resume it first); replay it "
        "when it has ended");
  }
  auto trials = store.ListTrials(experiment.value()->id);
  if (!trials.ok()) return trials.error();
  auto curves = store.ListCurves(experiment.value()->id);
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
    auto last = core::FindMetric(row.value().steps.back().metrics, time_attr);
    if (time_attr == "report") last = double(row.value().steps.size());
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
    if (time_attr == "report") last = double(row.steps.size());
    row.truncated = !row.diverged && last.value_or(0) < max_t;
  }
  return table;
}

}  // namespace tuner::sim
