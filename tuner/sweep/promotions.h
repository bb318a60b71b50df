// Promotions: a sweep's paused trials under a promotion-type scheduler
// (promotion ASHA, synchronous HyperBand), promoted or ended as stopped.
#ifndef TUNER_TUNER_SWEEP_PROMOTIONS_H_
#define TUNER_TUNER_SWEEP_PROMOTIONS_H_

#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/trial.h"
#include "schedulers/trial_scheduler.h"
#include "tuner/sweep/journal.h"
#include "tuner/sweep/progress.h"

namespace tuner {

struct LiveTrial;  // sweep_live_trial.h

// Holds the trials whose attempt paused at a rung (counted in
// `counts.paused`) and carries out what the scheduler says of them: a
// promotion (the trial runs again) or a stop (it ends as stopped), each
// stored before it is acted on. A promotion or stop may name a trial
// still pausing, which the sweep holds live: its phase changes there.
// The sweep launches, ends and stops trials through the hooks.
// Not thread-safe: everything runs on the sweep's event loop.
class Promotions {
 public:
  struct Sweep {
    // The sweep's live trial `trial`; nullptr when it holds none (paused
    // here, or ended).
    std::function<LiveTrial*(core::TrialId trial)> live;
    // A paused trial was promoted (kQueued now): the sweep takes it among
    // its live trials and launches its next attempt.
    std::function<void(std::unique_ptr<LiveTrial> trial)> relaunch;
    // Ends `trial` as stopped with `reason` (stored, counted, told); a
    // live one leaves the sweep's live trials.
    std::function<void(LiveTrial& trial, const std::string& reason)> finish;
    // Stops the trial's running attempt.
    std::function<void(core::TrialId trial)> stop;
    // `trial` paused (stored, and counted): tell whoever follows the sweep.
    std::function<void(const LiveTrial& trial)> paused;
  };
  // `scheduler`, `journal` and `counts` outlive the promotions.
  Promotions(schedulers::TrialScheduler& scheduler, Journal& journal,
             SweepCounts& counts, Sweep sweep);
  ~Promotions();
  Promotions(const Promotions&) = delete;
  Promotions& operator=(const Promotions&) = delete;

  // The pausing attempt of `trial` exited: stores it as paused (commits)
  // and holds it until the scheduler promotes or stops it.
  void Pause(std::unique_ptr<LiveTrial> trial);
  // A trial stored as paused, taken up on resume: held as Pause() holds.
  void Restore(std::unique_ptr<LiveTrial> trial);
  // The scheduler's next promotion, stored and committed: a paused trial
  // is relaunched, a pausing one runs on once its attempt has exited.
  // False when there is none, or storage failed.
  bool PromoteNext();
  // Ends the trials the scheduler will never promote (TakeStopped), each
  // decision stored first: a paused or queued one ends as stopped, a
  // running or pausing one is stopped (it ends at its exit).
  void EndStopped();
  // No trial will be added any more: tells the scheduler, once (a budget
  // extended later does not take it back), then ends what it stops.
  void BudgetSpent();
  // The sweep runs no trial and promotes none: ends the stopped ones, then
  // every paused one left, as stopped and not promoted.
  void EndUnpromoted();
  // Hands every paused trial over, uncounted (a faulted sweep fails them).
  std::vector<std::unique_ptr<LiveTrial>> TakeAll();

 private:
  // The stop of a trial the sweep holds live.
  void StopLive(LiveTrial& trial, const std::string& reason);

  schedulers::TrialScheduler& scheduler_;
  Journal& journal_;
  SweepCounts& counts_;
  Sweep sweep_;
  std::unordered_map<core::TrialId, std::unique_ptr<LiveTrial>> paused_;
  bool budget_spent_ = false;  // OnBudgetSpent() was called
};

}  // namespace tuner

#endif  // TUNER_TUNER_SWEEP_PROMOTIONS_H_
