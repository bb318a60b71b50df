#include "schedulers/hyperband.h"

#include <algorithm>
#include <cmath>

#include "schedulers/ranked_rung.h"

namespace tuner::schedulers {

HyperbandScheduler::HyperbandScheduler(const core::SchedulerSpec& spec)
    : max_t_(spec.max_t.value_or(0)),
      reduction_factor_(spec.reduction_factor),
      mode_(spec.mode) {
  brackets_ = HyperbandBrackets(spec);
  for (const auto& b : brackets_) period_ += b.trials;
}

int HyperbandScheduler::OnAdd(core::TrialId trial, int64_t index) {
  int64_t iteration = index / period_;
  int64_t offset = index % period_;
  int bracket = 0;
  while (offset >= brackets_[bracket].trials)
    offset -= brackets_[bracket++].trials;
  int64_t id = iteration * static_cast<int64_t>(brackets_.size()) + bracket;
  Group& group = groups_[id];
  if (group.rungs.empty()) {
    group.bracket = bracket;
    group.expected = brackets_[bracket].trials;
    group.rungs.resize(brackets_[bracket].milestones.size());
  }
  ++group.added;
  if (!group.rungs.empty()) group.rungs[0].awaiting.insert(trial);
  trials_[trial] = TrialState{id, 0};
  return bracket;
}

core::RungDecision HyperbandScheduler::RecordOf(
    const Group& group, int rung, double internal, int64_t rank, int64_t n,
    core::RungVerdict verdict) const {
  core::RungDecision d;
  d.bracket = group.bracket;
  d.rung = rung;
  d.milestone = brackets_[group.bracket].milestones[rung];
  d.value = External(internal, mode_);
  d.rank = rank;
  d.n = n;
  d.verdict = verdict;
  return d;
}

core::Decision HyperbandScheduler::OnReport(core::TrialId trial, double time,
                                            double value) {
  core::Decision decision;
  auto it = trials_.find(trial);
  if (it == trials_.end()) return decision;
  TrialState& state = it->second;
  Group& group = groups_[state.group];
  const auto& milestones = brackets_[group.bracket].milestones;
  if (state.next_rung < static_cast<int>(milestones.size()) &&
      Reached(time, milestones[state.next_rung])) {
    int r = state.next_rung++;
    Rung& rung = group.rungs[r];
    double internal = Internal(value, mode_);
    rung.values.emplace_back(internal, trial);
    rung.awaiting.erase(trial);
    int64_t rank = 1;
    for (const auto& [v, t] : rung.values) rank += v < internal;
    bool finite = std::isfinite(value);
    decision.rungs.push_back(RecordOf(
        group, r, internal, rank, static_cast<int64_t>(rung.values.size()),
        finite ? core::RungVerdict::kPause : core::RungVerdict::kStop));
    decision.rungs.back().value = value;
    decision.action = finite ? core::Action::kPause : core::Action::kStop;
    if (!finite) trials_.erase(it);
    CheckRung(group, r);
    return decision;
  }
  if (!std::isfinite(value)) {
    decision.action = core::Action::kStop;
  } else if (Reached(time, max_t_)) {
    decision.action = core::Action::kComplete;
  }
  if (decision.action != core::Action::kContinue) OnEnd(trial);
  return decision;
}

void HyperbandScheduler::OnEnd(core::TrialId trial) {
  auto it = trials_.find(trial);
  if (it == trials_.end()) return;
  Group& group = groups_[it->second.group];
  int r = it->second.next_rung;
  trials_.erase(it);
  if (r < static_cast<int>(group.rungs.size()) &&
      group.rungs[r].awaiting.erase(trial)) {
    CheckRung(group, r);
  }
}

void HyperbandScheduler::OnBudgetSpent() {
  budget_spent_ = true;
  for (auto& [id, group] : groups_) {
    group.expected = group.added;
    if (!group.rungs.empty()) CheckRung(group, 0);
  }
}

void HyperbandScheduler::CheckRung(Group& group, int rung) {
  Rung& r = group.rungs[rung];
  bool full = rung > 0 || group.added >= group.expected || budget_spent_;
  if (r.judged || !full || !r.awaiting.empty() || r.values.empty()) return;
  JudgeRung(group, rung);
}

void HyperbandScheduler::JudgeRung(Group& group, int rung) {
  Rung& r = group.rungs[rung];
  r.judged = true;
  auto sorted = r.values;  // stable: ties keep their recording order
  std::stable_sort(
      sorted.begin(), sorted.end(),
      [](const auto& a, const auto& b) { return a.first < b.first; });
  auto n = static_cast<int64_t>(sorted.size());
  int64_t keep = std::max<int64_t>(1, TopCount(n, reduction_factor_));
  int64_t better = 0;
  for (int64_t i = 0; i < n; ++i) {
    const auto& [internal, trial] = sorted[i];
    if (i > 0 && sorted[i - 1].first < internal) better = i;
    if (!std::isfinite(internal)) continue;  // stopped when recorded
    if (r.settled.count(trial)) continue;    // its record was restored
    bool promoted = i < keep;
    RungEvent event{trial, RecordOf(group, rung, internal, better + 1, n,
                                    promoted ? core::RungVerdict::kPromote
                                             : core::RungVerdict::kStop)};
    if (promoted) {
      if (rung + 1 < static_cast<int>(group.rungs.size()))
        group.rungs[rung + 1].awaiting.insert(trial);
      promotions_.push_back(event);
    } else {
      trials_.erase(trial);
      stopped_.push_back(event);
    }
  }
}

void HyperbandScheduler::RecheckRestored() {
  if (!restored_) return;
  restored_ = false;
  for (auto& [id, group] : groups_)
    for (int r = 0; r < static_cast<int>(group.rungs.size()); ++r)
      CheckRung(group, r);
}

std::optional<RungEvent> HyperbandScheduler::NextPromotion() {
  RecheckRestored();
  if (promotions_.empty()) return std::nullopt;
  RungEvent event = promotions_.front();
  promotions_.pop_front();
  return event;
}

std::vector<RungEvent> HyperbandScheduler::TakeStopped() {
  RecheckRestored();
  return std::exchange(stopped_, {});
}

void HyperbandScheduler::Restore(core::TrialId trial,
                                 const core::RungDecision& record) {
  auto it = trials_.find(trial);
  if (it == trials_.end()) return;
  Group& group = groups_[it->second.group];
  if (record.rung < 0 || record.rung >= static_cast<int>(group.rungs.size()))
    return;
  Rung& rung = group.rungs[record.rung];
  restored_ = true;
  switch (record.verdict) {
    case core::RungVerdict::kPromote:
      rung.settled.insert(trial);
      if (record.rung + 1 < static_cast<int>(group.rungs.size()))
        group.rungs[record.rung + 1].awaiting.insert(trial);
      return;
    case core::RungVerdict::kStop:
      if (std::isfinite(record.value)) {  // a loser of a judged rung
        rung.settled.insert(trial);
        trials_.erase(it);
        return;
      }
      break;
    default:
      break;
  }
  rung.values.emplace_back(Internal(record.value, mode_), trial);
  rung.awaiting.erase(trial);
  it->second.next_rung = std::max(it->second.next_rung, record.rung + 1);
  if (!std::isfinite(record.value)) trials_.erase(it);
}

}  // namespace tuner::schedulers
