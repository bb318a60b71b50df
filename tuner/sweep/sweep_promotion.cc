// The parts of Sweep that only promotion-type schedulers (promotion ASHA,
// synchronous HyperBand) use: pausing, promoting, ending paused trials.
#include <spdlog/spdlog.h>

#include "tuner/sweep/sweep.h"
#include "tuner/sweep/sweep_live_trial.h"

namespace tuner {

void Sweep::Observe(const LiveTrial& trial, double time, double value) {
  searcher_->Observe(trial.index, trial.params, time, value);
}

bool Sweep::PromoteNext() {
  auto event = scheduler_->NextPromotion();
  if (!event) return false;
  if (!journal_.AppendDecision({event->trial, event->record})) return false;
  if (!journal_.Commit()) return false;
  if (auto live = live_.find(event->trial); live != live_.end()) {
    live->second->life.Promote();  // its pause is still under way
    return true;
  }
  auto it = paused_.find(event->trial);
  if (it == paused_.end()) return true;  // ended meanwhile: nothing to resume
  LiveTrial& trial = *it->second;
  live_.emplace(event->trial, std::move(it->second));
  paused_.erase(it);
  --counts_.paused;
  trial.life.Promote();
  Relaunch(trial);
  return true;
}

void Sweep::Pause(std::unique_ptr<LiveTrial> trial) {
  storage::TrialEnd end{core::TrialStatus::kPaused, trial->exit_code,
                        trial->reason, trial->EndTime(), trial->exited_at};
  journal_.FinishTrial(trial->id, end);
  journal_.Commit();
  trial->life.Paused();
  ++counts_.paused;
  progress_.TrialEnded(EventOf(*trial), core::TrialStatus::kPaused,
                       trial->reason, counts_);
  core::TrialId id = trial->id;
  paused_.emplace(id, std::move(trial));
}

void Sweep::EndStoppedPaused() {
  for (const auto& event : scheduler_->TakeStopped()) {
    if (!journal_.AppendDecision({event.trial, event.record})) return;
    std::string reason = core::RungReason(event.record, false);
    if (auto live = live_.find(event.trial); live != live_.end()) {
      LiveTrial& trial = *live->second;
      if (trial.life.phase() != TrialPhase::kQueued) {
        bool runs_on = trial.life.Undecided();  // not pausing: stop it
        trial.life.StopPaused();                // else its pause is under way
        trial.reason = reason;
        if (runs_on) runner_->Stop(trial.id);
        continue;
      }
      // Promoted on resume and not launched yet: it ends here.
      Finish(trial, core::TrialStatus::kStopped, reason);
      live_.erase(live);
      continue;
    }
    auto it = paused_.find(event.trial);
    if (it == paused_.end()) continue;
    --counts_.paused;
    Finish(*it->second, core::TrialStatus::kStopped, reason);
    paused_.erase(it);
  }
}

void Sweep::NoteBudgetSpent() {
  if (budget_spent_) return;
  budget_spent_ = true;
  scheduler_->OnBudgetSpent();
  EndStoppedPaused();
}

void Sweep::EndUnpromoted() {
  if (!live_.empty()) return;
  while (seats_.AnyFree() && PromoteNext()) {
  }
  if (!live_.empty()) return;
  EndStoppedPaused();
  for (auto& [id, trial] : paused_) {
    --counts_.paused;
    Finish(*trial, core::TrialStatus::kStopped,
           trial->reason + "; not promoted");
  }
  paused_.clear();
}

}  // namespace tuner
