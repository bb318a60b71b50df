// A Gaussian-process searcher for asynchronous multi-fidelity schedulers
// (Hyper-Tune's independent variant, with MOBSTER's fantasies).
#ifndef TUNER_SCHEDULERS_GP_SEARCHER_H_
#define TUNER_SCHEDULERS_GP_SEARCHER_H_

#include <Eigen/Dense>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <vector>

#include "core/scheduler_spec.h"
#include "core/search_space.h"
#include "schedulers/candidate_set.h"
#include "schedulers/grid.h"
#include "schedulers/random_searcher.h"
#include "schedulers/searcher.h"

namespace tuner::schedulers {

class GaussianProcess;

// The rule (docs/schedulers.md, "gp"):
// - A configuration is a point of the unit cube: each numeric param by its
//   quantile under the prior (log-scaled where the param is), each choice or
//   grid param one-hot; a param a condition leaves out sits at -0.5.
// - `model: rung` (Hyper-Tune's independent variant): the model fits on the
//   highest resource level (a rung milestone, or the time a trial completed
//   at) that has at least max(n_startup, dims + 2) observations; at most
//   `max_points` of them (the best half of that many, then the rest evenly
//   spread over the ranking). `model: joint` (MOBSTER): one model over the
//   configuration and the resource (its log, scaled to [0, 1] between the
//   lowest and highest level seen) fits every level's observations once
//   they number max(n_startup, dims + 2), the highest levels first within
//   `max_points`, and predicts at the highest level. Until then, or for the
//   first n_startup trials, suggestions are random (the same as `random`
//   with the same seed; uniform among the untaken candidates when
//   restricted).
// - Matérn 5/2 kernel with one lengthscale per dimension; its
//   hyperparameters maximise the marginal likelihood (Adam, warm-started,
//   refitted when the level changes or its data grew by a quarter since the
//   last fit). Non-finite values count as the worst value seen. The model
//   sees the values' normal scores (NormalScores), not the values: only
//   their order matters, so one diverged trial does not flatten the rest.
// - Trials suggested but not yet reported are pending: each is added to the
//   model at its predicted mean (a "kriging believer" fantasy), counted in
//   the incumbent too, so that workers asking at once are spread apart.
//   The rung model also believes, likewise but outside the incumbent, the
//   latest 64 trials whose reports all lie below its level (stopped there,
//   or on their way): a region whose trials the scheduler stops early is
//   not proposed again and again for its unexplored variance. A point
//   within 0.02 of a pending one (Euclidean, in the unit cube) is taken
//   only where no other point has any expected improvement.
// - The suggestion maximises expected improvement over the best value at
//   the level (joint: the best predicted at the top level among the
//   configurations seen), among: the untaken candidates when restricted (at
//   most 4096, drawn uniformly beyond that); else n_candidates points, half
//   drawn from the prior and half around the five best (each unit coordinate
//   moved by a Gaussian of sd 0.1, each choice redrawn with probability 0.2).
// - Grid params follow the trial index as in `random` (unless restricted).
// Deterministic for a given seed and sequence of calls.
class GpSearcher : public Searcher {
 public:
  GpSearcher(core::SearchSpace space, const core::SearcherSpec& spec,
             core::Mode mode);
  ~GpSearcher() override;
  std::optional<core::Params> Suggest(int64_t index) override;
  void Observe(int64_t index, const core::Params& params, double time,
               double value) override;
  bool RestrictTo(std::vector<core::Params> candidates) override;

  // Where the model fitted for the last suggestion: the level and the
  // number of points it saw; no level while suggestions are random.
  std::optional<double> last_level() const { return last_level_; }
  int last_points() const { return last_points_; }

 private:
  class Model;
  struct Training;
  using Level = std::map<int64_t, double>;  // loss by trial index

  size_t NeededPoints() const;
  const Level* FitLevel(double* time) const;
  std::optional<Training> RungTraining() const;
  std::optional<Training> JointTraining() const;
  void AddPoints(const Level& level, size_t cap, double resource,
                 Training& t) const;
  Eigen::MatrixXd Inputs(const std::vector<const core::Params*>& all,
                         const std::vector<double>* resource) const;
  Eigen::MatrixXd WithResource(Eigen::MatrixXd x) const;
  std::vector<const core::Params*> Unseen(int64_t index, const Training& t,
                                          size_t* pending) const;
  size_t Choose(const GaussianProcess& gp, const Eigen::MatrixXd& option_x,
                const Eigen::MatrixXd& pending_x, double incumbent) const;
  std::optional<core::Params> SuggestRandom(int64_t index);
  std::vector<int64_t> PointsOf(const Level& level, size_t cap) const;
  std::vector<size_t> ScoredCandidates(int64_t index) const;
  std::vector<core::Params> DrawCandidates(
      int64_t index, const std::vector<int64_t>& best) const;

  core::SearchSpace space_;
  core::SearcherSpec spec_;
  core::Mode mode_;
  Grid grid_;
  RandomSearcher random_;
  std::optional<CandidateSet> candidates_;
  Eigen::MatrixXd candidate_x_;  // the candidates encoded, a row each
  std::map<int64_t, core::Params> params_;  // every trial suggested or seen
  std::set<int64_t> reported_;              // trials with an observation
  std::map<double, Level> levels_;
  std::unique_ptr<Model> model_;
  std::optional<double> last_level_;
  int last_points_ = 0;
};

}  // namespace tuner::schedulers

#endif  // TUNER_SCHEDULERS_GP_SEARCHER_H_
