// ChangeFeed: the dashboard's incremental reads, what changed in an
// experiment after a time. It only reads: the API serves it from the
// read-only connections of its StorePool, so polling dashboards never touch
// the sweeps' writer.
#ifndef TUNER_STORAGE_CHANGE_FEED_H_
#define TUNER_STORAGE_CHANGE_FEED_H_

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/result.h"
#include "storage/records.h"
#include "storage/sqlite.h"

namespace tuner::storage {

class ChangeFeed {
 public:
  // Reads `db`, which outlives the feed. `exit_times`: its trials table has
  // exited_at (schema 10; an old database opened read-only may not).
  ChangeFeed(Database& db, bool exit_times)
      : db_(db), exit_times_(exit_times) {}

  // `since` is a time as written in created_at (Unix seconds); each read
  // returns what was written or changed after it, so a reader that asks
  // again with an earlier time gets some rows twice (merge by key).
  // The trials created, started or ended after `since`, and every trial
  // that has not ended; with their params, by id.
  core::Result<std::vector<TrialRecord>> ListTrialsChangedSince(
      ExperimentId experiment, double since);
  // The reports made after `since` (by trial, then seq) of trials that had
  // not ended by then. `metric` empty: the objective as `value`; otherwise
  // that key of each report's metrics (null where absent, not a number or
  // not finite).
  // With `overview_above`, only the reports with a time and a value, and
  // when there are more of them than that, each trial's thinned by time
  // step: of its reports at one time, the last; of its times in order,
  // the 1st, 4th, 16th, 64th, ..., the last, and every one at a rung
  // milestone of the experiment (so the values its rungs judged are
  // there); `*thinned`, where given, says whether they were.
  core::Result<std::vector<CurvePoint>> ListCurvesSince(
      ExperimentId experiment, double since, const std::string& metric,
      std::optional<int64_t> overview_above = std::nullopt,
      bool* thinned = nullptr);
  // The rung decisions made after `since`, oldest first.
  core::Result<std::vector<DecisionRecord>> ListDecisionsSince(
      ExperimentId experiment, double since);
  // The leases acquired or released after `since`, and every one still
  // held, oldest first.
  core::Result<std::vector<LeaseRecord>> ListLeasesSince(
      ExperimentId experiment, double since);

 private:
  // The distinct milestones of the experiment's rung decisions.
  core::Result<std::set<double>> RungMilestones(ExperimentId experiment);

  Database& db_;
  bool exit_times_;
};

}  // namespace tuner::storage

#endif  // TUNER_STORAGE_CHANGE_FEED_H_
