#include "tuner/sweep/promotions.h"

#include <utility>

#include "tuner/sweep/sweep_live_trial.h"

namespace tuner {

Promotions::Promotions(schedulers::TrialScheduler& scheduler, Journal& journal,
                       SweepCounts& counts, Sweep sweep)
    : scheduler_(scheduler),
      journal_(journal),
      counts_(counts),
      sweep_(std::move(sweep)) {}

Promotions::~Promotions() = default;

void Promotions::Pause(std::unique_ptr<LiveTrial> trial) {
  storage::TrialEnd end{core::TrialStatus::kPaused, trial->exit_code,
                        trial->reason, trial->EndTime(), trial->exited_at};
  journal_.FinishTrial(trial->id, end);
  journal_.Commit();
  trial->life.Paused();
  ++counts_.paused;
  sweep_.paused(*trial);
  core::TrialId id = trial->id;
  paused_.emplace(id, std::move(trial));
}

void Promotions::Restore(std::unique_ptr<LiveTrial> trial) {
  ++counts_.paused;
  core::TrialId id = trial->id;
  paused_.emplace(id, std::move(trial));
}

bool Promotions::PromoteNext() {
  auto event = scheduler_.NextPromotion();
  if (!event) return false;
  if (!journal_.AppendDecision({event->trial, event->record})) return false;
  if (!journal_.Commit()) return false;
  if (LiveTrial* live = sweep_.live(event->trial)) {
    live->life.Promote();  // its pause is still under way
    return true;
  }
  auto it = paused_.find(event->trial);
  if (it == paused_.end()) return true;  // ended meanwhile: nothing to resume
  it->second->life.Promote();
  std::unique_ptr<LiveTrial> trial = std::move(it->second);
  paused_.erase(it);
  --counts_.paused;
  sweep_.relaunch(std::move(trial));
  return true;
}

void Promotions::EndStopped() {
  for (const auto& event : scheduler_.TakeStopped()) {
    if (!journal_.AppendDecision({event.trial, event.record})) return;
    std::string reason = core::RungReason(event.record, false);
    if (LiveTrial* live = sweep_.live(event.trial)) {
      StopLive(*live, reason);
      continue;
    }
    auto it = paused_.find(event.trial);
    if (it == paused_.end()) continue;
    --counts_.paused;
    sweep_.finish(*it->second, reason);
    paused_.erase(event.trial);
  }
}

void Promotions::StopLive(LiveTrial& trial, const std::string& reason) {
  if (trial.life.phase() == TrialPhase::kQueued) {
    // Promoted on resume and not launched yet: it ends here.
    return sweep_.finish(trial, reason);
  }
  bool runs_on = trial.life.Undecided();  // not pausing: stop it
  trial.life.StopPaused();                // else its pause is under way
  trial.reason = reason;
  if (runs_on) sweep_.stop(trial.id);
}

void Promotions::BudgetSpent() {
  if (budget_spent_) return;
  budget_spent_ = true;
  scheduler_.OnBudgetSpent();
  EndStopped();
}

void Promotions::EndUnpromoted() {
  EndStopped();
  for (auto& [id, trial] : paused_) {
    --counts_.paused;
    sweep_.finish(*trial, trial->reason + "; not promoted");
  }
  paused_.clear();
}

std::vector<std::unique_ptr<LiveTrial>> Promotions::TakeAll() {
  std::vector<std::unique_ptr<LiveTrial>> all;
  for (auto& [id, trial] : paused_) all.push_back(std::move(trial));
  paused_.clear();
  return all;
}

}  // namespace tuner
