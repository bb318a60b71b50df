// ReportTable: the reports and decisions tables, what each trial reported
// (its metrics, objective, time, and where in its output it read them) and
// what the scheduler decided at each rung.
#ifndef TUNER_STORAGE_REPORT_TABLE_H_
#define TUNER_STORAGE_REPORT_TABLE_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "storage/records.h"
#include "storage/row_batch.h"
#include "storage/sqlite.h"
#include "storage/trial_table.h"
#include "storage/write_batch.h"

namespace tuner::storage {

// Part of a TrialStore (TrialStore::reports()): its writes join the
// store's batch (gathered, and inserted many rows at a time), and its reads
// see them. Not thread-safe, as the store.
class ReportTable {
 public:
  // `db`, `batch` and `trials` outlive the table; Prepare() before any
  // other call.
  ReportTable(Database& db, WriteBatch& batch, TrialTable& trials)
      : db_(db), batch_(batch), trials_(trials) {}
  // A reader (`read_only`) prepares nothing.
  void Prepare(bool read_only);

  // Appends an accepted report, its objective as reported, and updates the
  // trial's last/best values when the report carries both the time and a
  // finite objective: a NaN or ±inf objective is never a trial's value, so
  // every view of the trial (trials, best, status, the API) shows and ranks
  // its last and best finite ones, or none.
  core::Status Append(const ReportRecord& report, core::Mode mode);
  core::Status AppendDecision(const DecisionRecord& record);

  // With `after_seq` and `limit` (>= 0): only the first `limit` reports
  // whose seq is above `after_seq` (one page).
  core::Result<std::vector<ReportRecord>> List(core::TrialId trial,
                                               int64_t after_seq = -1,
                                               int64_t limit = -1);
  // Every report of the experiment's trials (time, objective, when), by
  // trial then sequence: the learning curves.
  core::Result<std::vector<CurvePoint>> ListCurves(ExperimentId experiment);
  core::Result<std::vector<DecisionRecord>> ListDecisions(
      ExperimentId experiment);
  // Every report of the experiment's trials, by trial (in suggestion order)
  // then seq, with its metrics and created_at, handed to `visit` as it is
  // read (memory does not grow with the number of reports); the first
  // error `visit` returns stops the read and is returned.
  core::Status ForEach(
      ExperimentId experiment,
      const std::function<core::Status(const ReportRecord&)>& visit);
  // The distinct metric names of the experiment's reports, in the order
  // they first appear; kInvalidArgument when there are more than `limit`.
  core::Result<std::vector<std::string>> MetricNames(ExperimentId experiment,
                                                     int64_t limit);
  // The stdout offset of the trial's last report in `attempt`, if any.
  core::Result<std::optional<int64_t>> LastOffset(core::TrialId trial,
                                                  int64_t attempt);

  // --- the store's side (TrialStore)
  // Inserts the gathered rows.
  core::Status Flush();
  // Forgets the gathered rows (a batch lost).
  void Forget();

 private:
  Database& db_;
  WriteBatch& batch_;
  TrialTable& trials_;
  std::optional<RowBatch> reports_, decisions_;  // the writer's
};

}  // namespace tuner::storage

#endif  // TUNER_STORAGE_REPORT_TABLE_H_
