#include "schedulers/asha.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <utility>

namespace tuner::schedulers {

AshaScheduler::AshaScheduler(const core::SchedulerSpec& spec)
    : brackets_(PlanBrackets(spec)),
      max_t_(spec.max_t.value_or(0)),
      reduction_factor_(spec.reduction_factor),
      mode_(spec.mode),
      promotion_(spec.promotion),
      seed_(spec.seed),
      pasha_(spec.pasha && spec.promotion && brackets_.size() == 1),
      top_rung_(pasha_ ? 1 : std::numeric_limits<int>::max()) {
  if (pasha_) rung_values_.resize(brackets_[0].milestones.size());
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
    if (pasha_) NoteForPasha(trial, state.next_rung, internal);
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
    if (ref.rung >= top_rung_) continue;  // PASHA's limit
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
  if (record.verdict == core::RungVerdict::kPause) {
    rung.AddCandidate(trial, key);
    if (pasha_ && record.bracket == 0)
      NoteForPasha(trial, record.rung, Internal(record.value, mode_));
  }
  TrialState& state = StateOf(trial);
  state.bracket = record.bracket;
  state.next_rung = std::max(state.next_rung, record.rung + 1);
}

std::vector<double> AshaScheduler::Crossings(int rung) const {
  const auto& low = rung_values_[rung];
  std::vector<std::pair<double, double>> both;  // (at rung, at rung + 1)
  for (const auto& [trial, high] : rung_values_[rung + 1]) {
    if (auto it = low.find(trial); it != low.end())
      both.emplace_back(it->second, high);
  }
  std::vector<double> out;
  for (size_t i = 0; i < both.size(); ++i) {
    for (size_t j = i + 1; j < both.size(); ++j) {
      double before = both[i].first - both[j].first;
      double after = both[i].second - both[j].second;
      if ((before < 0 && after > 0) || (before > 0 && after < 0))
        out.push_back(std::abs(after));
    }
  }
  return out;
}

void AshaScheduler::NoteForPasha(core::TrialId trial, int rung,
                                 double internal) {
  rung_values_[rung][trial] =
      std::isfinite(internal) ? internal : std::numeric_limits<double>::max();
  int rungs = static_cast<int>(rung_values_.size());
  while (top_rung_ < rungs && (rung == top_rung_ || rung == top_rung_ - 1)) {
    std::vector<double> below;
    for (int r = 0; r + 1 < top_rung_; ++r) {
      auto c = Crossings(r);
      below.insert(below.end(), c.begin(), c.end());
    }
    double epsilon = 0;
    if (!below.empty()) {
      auto at =
          below.begin() + static_cast<std::ptrdiff_t>(
                              0.9 * static_cast<double>(below.size() - 1));
      std::nth_element(below.begin(), at, below.end());
      epsilon = *at;
    }
    auto top = Crossings(top_rung_ - 1);
    bool unstable = std::any_of(top.begin(), top.end(),
                                [&](double d) { return d > epsilon; });
    if (!unstable) return;
    ++top_rung_;
    rung = top_rung_;  // checks the next pair only once it has values
  }
}

}  // namespace tuner::schedulers
