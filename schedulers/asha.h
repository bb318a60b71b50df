// Asynchronous successive halving (ASHA) and async HyperBand, stopping or
// promotion type.
#ifndef TUNER_SCHEDULERS_ASHA_H_
#define TUNER_SCHEDULERS_ASHA_H_

#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/scheduler_spec.h"
#include "schedulers/brackets.h"
#include "schedulers/ranked_rung.h"
#include "schedulers/trial_scheduler.h"

namespace tuner::schedulers {

// The rule (docs/schedulers.md):
// - Bracket b has its rungs at grace_period * rf^k for k >= b, below max_t;
//   each trial belongs to one bracket (BracketOf) and competes only there.
// - Stopping type: when a report reaches a rung, its value is recorded there
//   and the trial continues iff its rank is within the top
//   max(1, floor(n / rf)) of the n values recorded at that rung, its own
//   included. Rank 1 is best; only strictly better values count against it,
//   so ties continue.
// - Promotion type: a trial reaching a rung is recorded and paused. When a
//   slot frees, the best paused trial not yet promoted whose rank is within
//   the top floor(n / rf) of its rung is promoted (highest milestone first,
//   any bracket); else the caller starts a new trial.
// - A non-finite value stops the trial; it is recorded as the worst value.
// - A report that crosses several rungs is judged at each, lowest first, with
//   the same value. A rung a trial has passed is never filled in later.
// - A report at or past max_t that survives its rungs completes the trial.
// - PASHA (`pasha`, promotion type, one bracket): trials are promoted only
//   up to the current top rung T, at first rung 1 (the second). After a
//   value is recorded at T or T-1, the trials recorded at both are ranked at
//   each; where two of them are ordered differently at T than at T-1 by more
//   than epsilon, T grows by one (up to max_t: then it is ASHA). Epsilon is
//   the 90th percentile of those differences over every pair of adjacent
//   rungs below (Bohdal et al., 2023); 0 while there are none.
// Each judgement and each promotion costs O(log n); PASHA's check O(k^2)
// for the k trials at the rungs it compares.
class AshaScheduler : public TrialScheduler {
 public:
  // REQUIRES: spec.max_t is set, grace_period > 0, reduction_factor > 1.
  explicit AshaScheduler(const core::SchedulerSpec& spec);

  int OnAdd(core::TrialId trial, int64_t index) override;
  core::Decision OnReport(core::TrialId trial, double time,
                          double value) override;
  void OnEnd(core::TrialId trial) override { trials_.erase(trial); }
  std::optional<RungEvent> NextPromotion() override;
  void Restore(core::TrialId trial, const core::RungDecision& record) override;
  std::vector<double> Milestones() const override {
    return brackets_[0].milestones;
  }
  const std::vector<Bracket>& brackets() const { return brackets_; }

 private:
  struct TrialState {
    int bracket = 0;
    int next_rung = 0;  // index of the next rung it can reach
  };
  struct RungRef {
    int bracket;
    int rung;
  };

  core::Decision Judge(core::TrialId trial, double time, double value);
  core::RungDecision Record(core::TrialId trial, const TrialState& state,
                            double value);
  // PASHA: notes a value at a rung and grows the top rung where the top two
  // rank differently.
  void NoteForPasha(core::TrialId trial, int rung, double internal);
  // The differences |a - b| at rung r + 1 of pairs of trials ordered
  // differently at r and r + 1.
  std::vector<double> Crossings(int rung) const;
  TrialState& StateOf(core::TrialId trial);

  std::vector<Bracket> brackets_;
  std::vector<std::vector<RankedRung>> rungs_;  // [bracket][rung]
  std::vector<RungRef> promotion_order_;        // highest milestone first
  double max_t_;
  double reduction_factor_;
  core::Mode mode_;
  bool promotion_;
  uint64_t seed_;
  std::unordered_map<core::TrialId, TrialState> trials_;
  bool pasha_;
  int top_rung_;  // PASHA: no promotion from rung top_rung_ or above
  // PASHA: the internal values each trial had at each rung (bracket 0).
  std::vector<std::unordered_map<core::TrialId, double>> rung_values_;

 public:
  // PASHA's current top rung (the rung count when it no longer limits).
  int top_rung() const { return top_rung_; }
};

}  // namespace tuner::schedulers

#endif  // TUNER_SCHEDULERS_ASHA_H_
