#include "schedulers/asha.h"

#include <algorithm>
#include <cmath>

namespace tuner::schedulers {

AshaScheduler::AshaScheduler(const core::SchedulerSpec& spec)
    : brackets_(PlanBrackets(spec)),
      max_t_(spec.max_t.value_or(0)),
      reduction_factor_(spec.reduction_factor),
      mode_(spec.mode),
      promotion_(spec.promotion),
      seed_(spec.seed) {
  for (int b = 0; b < static_cast<int>(brackets_.size()); ++b) {
    rungs_.emplace_back(brackets_[b].milestones.size());
    for (int r = 0; r < static_cast<int>(rungs_[b].size()); ++r)
      promotion_order_.push_back({b, r});
  }
  // Highest milestone first; on equal milestones the lower bracket first.
  std::stable_sort(promotion_order_.begin(), promotion_order_.end(),
                   [this](const RungRef& x, const RungRef& y) {
                     return brackets_[x.bracket].milestones[x.rung] >
                            brackets_[y.bracket].milestones[y.rung];
                   });
}

int AshaScheduler::OnAdd(core::TrialId trial, int64_t index) {
  int bracket = BracketOf(brackets_, seed_, index);
  trials_[trial] = TrialState{bracket, 0};
  return bracket;
}

AshaScheduler::TrialState& AshaScheduler::StateOf(core::TrialId trial) {
  return trials_.try_emplace(trial).first->second;  // unknown: bracket 0
}

core::RungDecision AshaScheduler::Record(core::TrialId trial,
                                         const TrialState& state,
                                         double value) {
  RankedRung& rung = rungs_[state.bracket][state.next_rung];
  double internal = Internal(value, mode_);
  RankedRung::Key key = rung.Insert(internal);
  core::RungDecision d;
  d.bracket = state.bracket;
  d.rung = state.next_rung;
  d.milestone = brackets_[state.bracket].milestones[state.next_rung];
  d.value = value;
  d.rank = rung.RankOf(internal);
  d.n = rung.size();
  if (!std::isfinite(value)) {
    d.verdict = core::RungVerdict::kStop;
  } else if (promotion_) {
    d.verdict = core::RungVerdict::kPause;
    rung.AddCandidate(trial, key);
  } else {
    bool kept =
        d.rank <= std::max<int64_t>(1, TopCount(d.n, reduction_factor_));
    d.verdict = kept ? core::RungVerdict::kContinue : core::RungVerdict::kStop;
  }
  return d;
}

core::Decision AshaScheduler::OnReport(core::TrialId trial, double time,
                                       double value) {
  core::Decision decision = Judge(trial, time, value);
  if (decision.action == core::Action::kStop ||
      decision.action == core::Action::kComplete) {
    trials_.erase(trial);  // it reports no more
  }
  return decision;
}

core::Decision AshaScheduler::Judge(core::TrialId trial, double time,
                                    double value) {
  core::Decision decision;
  TrialState& state = StateOf(trial);
  const auto& milestones = brackets_[state.bracket].milestones;
  while (state.next_rung < static_cast<int>(milestones.size()) &&
         Reached(time, milestones[state.next_rung])) {
    decision.rungs.push_back(Record(trial, state, value));
    ++state.next_rung;
    core::RungVerdict verdict = decision.rungs.back().verdict;
    if (verdict == core::RungVerdict::kStop) {
      decision.action = core::Action::kStop;
      return decision;
    }
    if (verdict == core::RungVerdict::kPause) {
      decision.action = core::Action::kPause;
      return decision;
    }
  }
  if (!std::isfinite(value)) {
    decision.action = core::Action::kStop;
  } else if (Reached(time, max_t_)) {
    decision.action = core::Action::kComplete;
  }
  return decision;
}

std::optional<RungEvent> AshaScheduler::NextPromotion() {
  for (const RungRef& ref : promotion_order_) {
    RankedRung& rung = rungs_[ref.bracket][ref.rung];
    auto best = rung.BestCandidate();
    if (!best) continue;
    int64_t rank = rung.RankOf(best->second.first);
    if (rank > TopCount(rung.size(), reduction_factor_)) continue;
    rung.RemoveCandidate(best->first);
    RungEvent event;
    event.trial = best->first;
    event.record.bracket = ref.bracket;
    event.record.rung = ref.rung;
    event.record.milestone = brackets_[ref.bracket].milestones[ref.rung];
    event.record.value = External(best->second.first, mode_);
    event.record.rank = rank;
    event.record.n = rung.size();
    event.record.verdict = core::RungVerdict::kPromote;
    return event;
  }
  return std::nullopt;
}

void AshaScheduler::Restore(core::TrialId trial,
                            const core::RungDecision& record) {
  if (record.bracket < 0 || record.bracket >= static_cast<int>(rungs_.size()))
    return;
  auto& rungs = rungs_[record.bracket];
  if (record.rung < 0 || record.rung >= static_cast<int>(rungs.size())) return;
  RankedRung& rung = rungs[record.rung];
  if (record.verdict == core::RungVerdict::kPromote) {
    rung.RemoveCandidate(trial);
    return;
  }
  RankedRung::Key key = rung.Insert(Internal(record.value, mode_));
  if (record.verdict == core::RungVerdict::kPause)
    rung.AddCandidate(trial, key);
  TrialState& state = StateOf(trial);
  state.bracket = record.bracket;
  state.next_rung = std::max(state.next_rung, record.rung + 1);
}

}  // namespace tuner::schedulers
