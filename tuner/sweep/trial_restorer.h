// TrialRestorer: what a sweep knew, rebuilt from what its store holds.
#ifndef TUNER_TUNER_SWEEP_TRIAL_RESTORER_H_
#define TUNER_TUNER_SWEEP_TRIAL_RESTORER_H_

#include <memory>
#include <unordered_map>
#include <vector>

#include "schedulers/searcher.h"
#include "schedulers/trial_scheduler.h"
#include "storage/trial_store.h"
#include "tuner/config/experiment_config.h"
#include "tuner/sweep/journal.h"
#include "tuner/sweep/trial_life.h"

namespace tuner {

struct LiveTrial;

// Reads an unfinished experiment back for Sweep::Resume: the scheduler's
// and the searcher's state, and each trial not ended as a LiveTrial in the
// phase its stored attempt had reached. It takes no action: the sweep
// adopts, relaunches, queues or parks what it rebuilds. A read that fails
// is noted to the journal (the sweep fails). Reads only.
class TrialRestorer {
 public:
  TrialRestorer(const ExperimentConfig& config, storage::TrialStore& store,
                Journal& journal);

  // Whether the row ended (completed, stopped, failed).
  static bool Ended(const storage::TrialRecord& row);
  // A trial a graceful stop ended, recorded as stopped with this reason (a
  // database may hold such rows; such a trial now goes back to pending):
  // taken up again like a pending one.
  static bool Interrupted(const storage::TrialRecord& row);

  // Re-enters the trials (in index order), every stored rung decision and
  // every end into `scheduler`, and the rung values and completed trials'
  // last values into `searcher`; keeps each trial's last rung decision.
  void RestoreScheduler(storage::ExperimentId experiment,
                        const std::vector<storage::TrialRecord>& rows,
                        schedulers::TrialScheduler& scheduler,
                        schedulers::Searcher& searcher);
  // The stored trial as a live one (after RestoreScheduler): its retries,
  // reports seen and judged, what its next attempt repeats, and its phase:
  // paused (not promoted), queued (pending, or paused and promoted), or for
  // a running row its attempt's verdict (stopping, pausing, resuming,
  // completing) or running. Its output_dir is left to the sweep.
  std::unique_ptr<LiveTrial> Rebuild(const storage::TrialRecord& row);

 private:
  void RestoreReports(LiveTrial& trial,
                      const std::vector<storage::ReportRecord>& reports);
  // The phase of the attempt a stored running trial had reached: its last
  // rung decision (stop, pause, or promoted while pausing), max_t reached,
  // or none; fills in the verdict's stop_time and reason.
  TrialPhase RestoredPhase(LiveTrial& trial, const storage::TrialRecord& row,
                           const std::vector<storage::ReportRecord>& reports);
  // Whether the trial's last rung decision promoted it.
  bool Promoted(const storage::TrialRecord& row) const;

  const ExperimentConfig& config_;
  storage::TrialStore& store_;
  Journal& journal_;
  std::unordered_map<core::TrialId, core::RungDecision> last_decision_;
};

}  // namespace tuner

#endif  // TUNER_TUNER_SWEEP_TRIAL_RESTORER_H_
