// Synchronous HyperBand (Li et al., JMLR 2018): successive halving brackets
// whose rungs wait until every trial of the bracket has reached them.
#ifndef TUNER_SCHEDULERS_HYPERBAND_H_
#define TUNER_SCHEDULERS_HYPERBAND_H_

#include <cstdint>
#include <deque>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "core/scheduler_spec.h"
#include "schedulers/brackets.h"
#include "schedulers/trial_scheduler.h"

namespace tuner::schedulers {

// Trials are dealt in HyperBand's order: each iteration gives bracket 0 its
// `trials` consecutive indices (the most aggressive bracket), then bracket 1,
// and so on; one such run of a bracket is a group. A trial reaching a rung
// is recorded and paused. Once every trial of its group has reached the rung
// or ended (and the group is full, or the budget is spent), the rung is
// judged: the best max(1, floor(n / rf)) of its n values are promoted, the
// other paused trials are stopped. A non-finite value stops its trial at
// once and counts as the worst. A report at or past max_t completes.
// Recording ranks a value by a scan of its group's rung, and judging a rung
// sorts it: groups are small (at most rf^s_max trials).
class HyperbandScheduler : public TrialScheduler {
 public:
  // REQUIRES: spec.max_t is set, grace_period > 0, reduction_factor > 1.
  explicit HyperbandScheduler(const core::SchedulerSpec& spec);

  int OnAdd(core::TrialId trial, int64_t index) override;
  core::Decision OnReport(core::TrialId trial, double time,
                          double value) override;
  void OnEnd(core::TrialId trial) override;
  void OnBudgetSpent() override;
  std::optional<RungEvent> NextPromotion() override;
  std::vector<RungEvent> TakeStopped() override;
  void Restore(core::TrialId trial, const core::RungDecision& record) override;
  std::vector<double> Milestones() const override {
    return brackets_[0].milestones;
  }

 private:
  struct Rung {
    std::vector<std::pair<double, core::TrialId>> values;  // internal
    std::unordered_set<core::TrialId> awaiting;  // to reach it, still alive
    // Promoted or stopped by a restored record: judging the rung again
    // (after a restore) hands out only the verdicts of the others.
    std::unordered_set<core::TrialId> settled;
    bool judged = false;
  };
  struct Group {
    int bracket = 0;
    int64_t expected = 0;  // trials it will get
    int64_t added = 0;
    std::vector<Rung> rungs;
  };
  struct TrialState {
    int64_t group = 0;
    int next_rung = 0;
  };

  void CheckRung(Group& group, int rung);
  // After Restore(): judges the rungs whose verdicts were not all stored.
  void RecheckRestored();
  void JudgeRung(Group& group, int rung);
  core::RungDecision RecordOf(const Group& group, int rung, double internal,
                              int64_t rank, int64_t n,
                              core::RungVerdict verdict) const;

  std::vector<Bracket> brackets_;
  int64_t period_ = 0;  // trials per HyperBand iteration
  double max_t_;
  double reduction_factor_;
  core::Mode mode_;
  std::unordered_map<int64_t, Group> groups_;
  std::unordered_map<core::TrialId, TrialState> trials_;
  std::deque<RungEvent> promotions_;
  std::vector<RungEvent> stopped_;
  bool budget_spent_ = false;
  bool restored_ = false;  // recheck every rung before the next answer
};

}  // namespace tuner::schedulers

#endif  // TUNER_SCHEDULERS_HYPERBAND_H_
