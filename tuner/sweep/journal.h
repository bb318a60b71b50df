// Journal: a sweep's one writer to its store, and its commit policy.
#ifndef TUNER_TUNER_SWEEP_JOURNAL_H_
#define TUNER_TUNER_SWEEP_JOURNAL_H_

#include <boost/asio/io_context.hpp>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>  // before Asio: Boost 1.74 with GCC 12 needs it

#include "storage/trial_store.h"

namespace tuner {

// Writes what a sweep decides, in batches the store commits:
// - a write that an action depends on (a launch, a stop, a trial's end) is
//   committed before the action (the methods that say "commits");
// - any other write (a report, a shim's pid) opens or joins a batch that
//   is committed right after the handler that wrote it returns (posted on
//   the loop), so bursts share one commit and no batch, nor the write lock,
//   is held while the loop waits for a device, a timer or a trial.
// The first failure, of a write or of a read passed to Note(), is told to
// `on_failure` once (the sweep stops), after the store's reserve pages are
// released so that the writes that end the trials still fit on a full
// disk. Methods return false on failure. Not thread-safe: one loop.
class Journal {
 public:
  using OnFailure = std::function<void(const std::string& why)>;
  Journal(boost::asio::io_context& io, storage::TrialStore& store,
          OnFailure on_failure);
  // Commits what is pending (a sweep the service destroys mid-batch).
  ~Journal();
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;

  // Notes the result of a read (or of a write made elsewhere): a failure
  // is handled as a failed write. Returns status.ok().
  bool Note(const core::Status& status);
  bool failed() const { return failed_; }

  // The experiment, its Slurm allocation if any; commits. Errors are
  // returned, not told (the sweep has not started).
  core::Result<storage::ExperimentId> CreateExperiment(
      const storage::ExperimentRecord& record, const storage::ClusterJob& job);
  // Marks the experiment running again (a resume); commits.
  core::Status ExperimentResumed(storage::ExperimentId experiment);
  // The sweep's end (finished, interrupted, failed and why); commits,
  // best effort: the sweep ends whatever the store says.
  void ExperimentEnded(storage::ExperimentId experiment,
                       core::ExperimentStatus status, const std::string& error);

  std::optional<core::TrialId> AddTrial(storage::ExperimentId experiment,
                                        int64_t index,
                                        const core::Params& params);
  // Opens the attempt's lease and marks the trial running; commits.
  // Returns the lease's row.
  std::optional<int64_t> Launched(const storage::LeaseRecord& lease);
  void CloseLease(int64_t lease_row);
  // Its shim's pid and start time (nullopt: it has none now).
  void SetShim(core::TrialId trial, std::optional<int64_t> pid,
               std::optional<int64_t> start);
  void SetRetries(core::TrialId trial, const storage::RetryCounts& counts);
  bool AppendReport(const storage::ReportRecord& report, core::Mode mode);
  bool AppendDecision(const storage::DecisionRecord& decision);
  // A trial's end (or pause); committed by the next Commit().
  bool FinishTrial(core::TrialId trial, const storage::TrialEnd& end);

  // Commits the open batch now.
  bool Commit();

 private:
  // Posts the batch's commit, once per batch.
  void CommitSoon();

  boost::asio::io_context& io_;
  storage::TrialStore& store_;
  OnFailure on_failure_;
  bool failed_ = false;
  bool commit_posted_ = false;
  // Expires with the journal: a posted commit of a destroyed sweep is void.
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace tuner

#endif  // TUNER_TUNER_SWEEP_JOURNAL_H_
