// Tree-structured Parzen estimator (Bergstra et al. 2011), fitted as BOHB
// does under ASHA: on the highest rung that has enough observations.
#ifndef TUNER_SCHEDULERS_TPE_H_
#define TUNER_SCHEDULERS_TPE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "core/scheduler_spec.h"
#include "core/search_space.h"
#include "schedulers/candidate_set.h"
#include "schedulers/grid.h"
#include "schedulers/random_searcher.h"
#include "schedulers/sampling.h"
#include "schedulers/searcher.h"

namespace tuner::schedulers {

// Trial i takes grid combination i mod G (as random search does). Until some
// resource level has at least max(n_startup, params + 2) observations,
// trials are random (the same as `random` with the same seed). After that,
// the model fits on the highest such level: its observations are split into
// the best ceil(gamma * n) ("good") and the rest; each param gets a Parzen
// estimator per side (Gaussian kernels in log space for log params, with a
// wide prior kernel; smoothed counts for choices), `n_candidates` values are
// drawn from the good one and the value maximising good/bad density wins.
// Params are modelled independently; conditional params only from the
// observations that have them. Restricted to candidates, it is random among
// the untaken ones until the model fits, then takes the untaken candidate
// (at most 4096 scored, drawn uniformly beyond that) with the highest sum
// over its params of log(good density / bad density). Deterministic for a
// given seed and sequence of observations.
class TpeSearcher : public Searcher {
 public:
  TpeSearcher(core::SearchSpace space, const core::SearcherSpec& spec,
              core::Mode mode);
  std::optional<core::Params> Suggest(int64_t index) override;
  void Observe(int64_t index, const core::Params& params, double time,
               double value) override;
  bool RestrictTo(std::vector<core::Params> candidates) override;

 private:
  struct Observation {
    core::Params params;
    double loss;  // lower is better; non-finite values are the worst
  };
  using Level = std::map<int64_t, Observation>;  // by trial index

  // The level the model fits on, or nullptr while there is none.
  const Level* FitLevel() const;
  int Candidates() const {
    return spec_.n_candidates > 0 ? spec_.n_candidates : 24;
  }
  core::ParamValue SuggestParam(const core::ParamSpec& spec,
                                const std::vector<const Observation*>& good,
                                const std::vector<const Observation*>& bad,
                                Rng& rng) const;
  std::optional<core::Params> SuggestCandidate(
      int64_t index, const std::vector<const Observation*>* good,
      const std::vector<const Observation*>* bad);

  core::SearchSpace space_;
  core::SearcherSpec spec_;
  core::Mode mode_;
  Grid grid_;
  RandomSearcher random_;  // until the model has enough observations
  std::map<double, Level> levels_;
  std::optional<CandidateSet> candidates_;
  std::set<int64_t> known_;  // trial indices suggested or observed
};

}  // namespace tuner::schedulers

#endif  // TUNER_SCHEDULERS_TPE_H_
