// TrialScheduler: judges trial reports (continue, stop, pause, complete) and,
// for the promotion type, picks paused trials to resume.
#ifndef TUNER_SCHEDULERS_TRIAL_SCHEDULER_H_
#define TUNER_SCHEDULERS_TRIAL_SCHEDULER_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "core/trial.h"

namespace tuner::schedulers {

// A rung record about a trial that the scheduler produced on its own (not in
// answer to one of the trial's reports): a promotion, or the stop of a
// paused trial that lost.
struct RungEvent {
  core::TrialId trial = 0;
  core::RungDecision record;
};

// A synchronous state machine: trials and reports in, decisions out.
// Deterministic: the same sequence of calls gives the same decisions. No I/O,
// no clock, no randomness but its seed. Its whole state is the trials it was
// told of and the rung records it returned, so a caller that stored them can
// rebuild it: OnAdd() every trial in index order, then Restore() every
// record in the order it was returned. Not thread-safe.
class TrialScheduler {
 public:
  virtual ~TrialScheduler() = default;
  TrialScheduler() = default;
  TrialScheduler(const TrialScheduler&) = delete;
  TrialScheduler& operator=(const TrialScheduler&) = delete;

  // Registers trial number `index` (0, 1, ... in launch order) before its
  // first report. Returns its bracket.
  virtual int OnAdd(core::TrialId trial, int64_t index) = 0;

  // Judges a report of `trial` that reached resource `time` (in time_attr
  // units) with objective `value` (as reported; mode is the scheduler's).
  // Reports of one trial must come with increasing `time`. After kStop or
  // kComplete the caller sends no more reports of that trial; after kPause
  // none until NextPromotion() returned it.
  virtual core::Decision OnReport(core::TrialId trial, double time,
                                  double value) = 0;

  // `trial` ended without a decision of the scheduler ending it (it failed,
  // crashed, or the sweep was interrupted): it reports no more.
  virtual void OnEnd(core::TrialId trial) { (void)trial; }

  // No trial will be added any more: the sweep's budget is spent.
  virtual void OnBudgetSpent() {}

  // The paused trial to resume now, if any (its record has verdict
  // kPromote; store it). The caller asks whenever a slot is free, before it
  // starts a new trial. Always nullopt for stopping-type schedulers.
  virtual std::optional<RungEvent> NextPromotion() { return std::nullopt; }

  // Paused trials that will never be resumed, each with its kStop record;
  // the caller ends them as stopped. Drains the list.
  virtual std::vector<RungEvent> TakeStopped() { return {}; }

  // Re-enters one rung record returned earlier (for resume).
  virtual void Restore(core::TrialId trial,
                       const core::RungDecision& record) = 0;

  // The rung milestones of bracket 0, lowest first (empty for schedulers
  // without rungs).
  virtual std::vector<double> Milestones() const = 0;
};

}  // namespace tuner::schedulers

#endif  // TUNER_SCHEDULERS_TRIAL_SCHEDULER_H_
