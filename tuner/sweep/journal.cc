#include "tuner/sweep/journal.h"

#include <spdlog/spdlog.h>

#include <boost/asio/post.hpp>

namespace tuner {

Journal::Journal(boost::asio::io_context& io, storage::TrialStore& store,
                 OnFailure on_failure)
    : io_(io), store_(store), on_failure_(std::move(on_failure)) {}

Journal::~Journal() { (void)store_.Commit(); }

bool Journal::Note(const core::Status& status) {
  if (store_.InTransaction()) CommitSoon();
  if (status.ok()) return true;
  if (!failed_) {
    failed_ = true;
    spdlog::error("storage failed, stopping the sweep: {}", status.message());
    // Room for the trials' ends, should the disk be full.
    (void)store_.ReleaseReserve();
  }
  if (on_failure_) on_failure_(status.message());
  return false;
}

void Journal::CommitSoon() {
  if (commit_posted_) return;
  commit_posted_ = true;
  boost::asio::post(io_, [this, alive = std::weak_ptr<bool>(alive_)] {
    if (alive.expired()) return;
    commit_posted_ = false;
    Note(store_.Commit());
  });
}

bool Journal::Commit() { return Note(store_.Commit()); }

core::Result<storage::ExperimentId> Journal::CreateExperiment(
    const storage::ExperimentRecord& record, const storage::ClusterJob& job) {
  auto id = store_.experiments().Create(record);
  if (!id.ok()) return id.status();
  if (!job.job.empty())
    TUNER_RETURN_IF_ERROR(store_.experiments().SetClusterJob(id.value(), job));
  TUNER_RETURN_IF_ERROR(store_.Commit());
  return id;
}

core::Status Journal::ExperimentResumed(storage::ExperimentId experiment) {
  TUNER_RETURN_IF_ERROR(store_.experiments().SetStatus(
      experiment, core::ExperimentStatus::kRunning));
  return store_.Commit();
}

void Journal::ExperimentEnded(storage::ExperimentId experiment,
                              core::ExperimentStatus status,
                              const std::string& error) {
  (void)store_.experiments().SetStatus(experiment, status, error);
  (void)store_.Commit();
}

std::optional<core::TrialId> Journal::AddTrial(storage::ExperimentId experiment,
                                               int64_t index,
                                               const core::Params& params) {
  auto id = store_.trials().Add(experiment, index, params);
  if (!Note(id.status())) return std::nullopt;
  return id.value();
}

std::optional<int64_t> Journal::Launched(const storage::LeaseRecord& lease) {
  // Running first: a trial added in this batch is then inserted running.
  if (!Note(store_.trials().MarkRunning(lease.trial))) return std::nullopt;
  auto row = store_.leases().Open(lease);
  if (!Note(row.status()) || !Commit()) return std::nullopt;
  return row.value();
}

void Journal::CloseLease(int64_t lease_row) {
  Note(store_.leases().Close(lease_row));
}

void Journal::SetShim(core::TrialId trial, std::optional<int64_t> pid,
                      std::optional<int64_t> start) {
  Note(store_.trials().SetShim(trial, pid, start));
}

void Journal::SetRetries(core::TrialId trial,
                         const storage::RetryCounts& counts) {
  Note(store_.trials().SetRetries(trial, counts));
}

bool Journal::AppendReport(const storage::ReportRecord& report,
                           core::Mode mode) {
  return Note(store_.reports().Append(report, mode));
}

bool Journal::AppendDecision(const storage::DecisionRecord& decision) {
  return Note(store_.reports().AppendDecision(decision));
}

bool Journal::FinishTrial(core::TrialId trial, const storage::TrialEnd& end) {
  return Note(store_.trials().Finish(trial, end));
}

}  // namespace tuner
