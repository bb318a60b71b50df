#include "schedulers/gp_searcher.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "schedulers/gaussian_process.h"
#include "schedulers/ranked_rung.h"
#include "schedulers/sampling.h"

namespace tuner::schedulers {

namespace {

constexpr size_t kMaxScored = 4096;  // restricted: candidates scored at most
constexpr size_t kLocalAround = 5;   // continuous: best points perturbed
constexpr double kLocalSd = 0.1;
constexpr double kLocalRedraw = 0.2;
constexpr double kInactive = -0.5;
constexpr double kMinSeparation = 0.02;  // from a pending trial, unit cube
constexpr size_t kMaxUnseenBelow = 64;   // believed below the fitted level
constexpr int kColdIterations = 80, kWarmIterations = 30;
constexpr double kRefitGrowth = 1.25;

bool IsCategorical(const core::ParamSpec& spec) {
  return spec.distribution == core::Distribution::kChoice ||
         spec.distribution == core::Distribution::kGrid;
}

}  // namespace

// Maps params to the unit cube (see GpSearcher's class comment).
class UnitCubeEncoder {
 public:
  explicit UnitCubeEncoder(const core::SearchSpace& space) : space_(&space) {
    for (const auto& spec : space.params)
      dims_ += IsCategorical(spec) ? static_cast<int>(spec.values.size()) : 1;
  }
  int dims() const { return dims_; }
  Eigen::VectorXd Encode(const core::Params& params) const {
    Eigen::VectorXd x = Eigen::VectorXd::Zero(dims_);
    int at = 0;
    for (const auto& spec : space_->params) {
      const core::ParamValue* value = FindParam(params, spec.name);
      if (IsCategorical(spec)) {
        for (size_t i = 0; i < spec.values.size(); ++i)
          x(at + static_cast<int>(i)) = value && spec.values[i] == *value;
        at += static_cast<int>(spec.values.size());
      } else {
        x(at++) = value ? ToUnit(spec, *value) : kInactive;
      }
    }
    return x;
  }
  Eigen::MatrixXd EncodeAll(const std::vector<const core::Params*>& all) const {
    Eigen::MatrixXd m(static_cast<Eigen::Index>(all.size()), dims_);
    for (size_t i = 0; i < all.size(); ++i)
      m.row(static_cast<Eigen::Index>(i)) = Encode(*all[i]);
    return m;
  }

 private:
  const core::SearchSpace* space_;
  int dims_ = 0;
};

// The encoder and the hyperparameters of the last fit, reused until the
// data grow enough to refit.
class GpSearcher::Model {
 public:
  explicit Model(const core::SearchSpace& space) : encoder_(space) {}
  const UnitCubeEncoder& encoder() const { return encoder_; }

  const GpHyper& HyperFor(double level, size_t observations,
                          const Eigen::MatrixXd& x, const Eigen::VectorXd& y) {
    int dims = static_cast<int>(x.cols());
    bool refit = !hyper_ || level != fit_level_ ||
                 static_cast<double>(observations) >=
                     kRefitGrowth * static_cast<double>(fit_observations_);
    if (refit) {
      int iterations = hyper_ ? kWarmIterations : kColdIterations;
      hyper_ = GaussianProcess::FitHyper(
          x, y, hyper_.value_or(GpHyper::Default(dims)), iterations);
      fit_level_ = level;
      fit_observations_ = observations;
    }
    return *hyper_;
  }

 private:
  UnitCubeEncoder encoder_;
  std::optional<GpHyper> hyper_;
  double fit_level_ = 0;
  size_t fit_observations_ = 0;
};

GpSearcher::GpSearcher(core::SearchSpace space, const core::SearcherSpec& spec,
                       core::Mode mode)
    : space_(std::move(space)),
      spec_(spec),
      mode_(mode),
      grid_(GridAxes(space_, false)),
      random_(space_, spec.seed),
      model_(std::make_unique<Model>(space_)) {}

GpSearcher::~GpSearcher() = default;

bool GpSearcher::RestrictTo(std::vector<core::Params> candidates) {
  std::vector<const core::Params*> all;
  for (const auto& c : candidates) all.push_back(&c);
  candidate_x_ = model_->encoder().EncodeAll(all);
  candidates_.emplace(std::move(candidates));
  for (const auto& [index, params] : params_) candidates_->TakeEqual(params);
  return true;
}

void GpSearcher::Observe(int64_t index, const core::Params& params, double time,
                         double value) {
  levels_[time][index] = Internal(value, mode_);
  reported_.insert(index);
  if (params_.emplace(index, params).second && candidates_)
    candidates_->TakeEqual(params);
}

const GpSearcher::Level* GpSearcher::FitLevel(double* time) const {
  size_t needed = NeededPoints();
  for (auto it = levels_.rbegin(); it != levels_.rend(); ++it) {
    if (it->second.size() < needed) continue;
    *time = it->first;
    return &it->second;
  }
  return nullptr;
}

std::optional<core::Params> GpSearcher::SuggestRandom(int64_t index) {
  std::optional<core::Params> params;
  if (candidates_) {
    Rng rng =
        Rng::ForIndex(spec_.seed ^ 0x6a09e667ull, static_cast<uint64_t>(index));
    auto i = candidates_->DrawUntaken(rng);
    if (i) params = candidates_->Take(*i);
  } else {
    params = random_.Suggest(index);
  }
  if (params) params_[index] = *params;
  return params;
}

// The trials the model sees at `level`: all, or at most `cap` of them:
// the best half of that many, then the rest evenly spread over the ranking.
std::vector<int64_t> GpSearcher::PointsOf(const Level& level,
                                          size_t cap) const {
  std::vector<std::pair<double, int64_t>> ranked;
  for (const auto& [index, loss] : level) ranked.emplace_back(loss, index);
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](auto& a, auto& b) { return a.first < b.first; });
  cap = std::max<size_t>(cap, 2);
  std::vector<int64_t> points;
  if (ranked.size() <= cap) {
    for (const auto& r : ranked) points.push_back(r.second);
    return points;
  }
  size_t head = cap / 2, tail = cap - head;
  for (size_t i = 0; i < head; ++i) points.push_back(ranked[i].second);
  double step =
      static_cast<double>(ranked.size() - head) / static_cast<double>(tail);
  for (size_t k = 0; k < tail; ++k) {
    auto i = head + static_cast<size_t>(static_cast<double>(k) * step);
    points.push_back(ranked[std::min(i, ranked.size() - 1)].second);
  }
  return points;
}

// The untaken candidates to score: all, or kMaxScored drawn uniformly.
std::vector<size_t> GpSearcher::ScoredCandidates(int64_t index) const {
  Rng rng =
      Rng::ForIndex(spec_.seed ^ 0xbb67ae85ull, static_cast<uint64_t>(index));
  return candidates_->UntakenAtMost(kMaxScored, rng);
}

// n_candidates points: even ones drawn from the prior, odd ones around the
// best configurations.
std::vector<core::Params> GpSearcher::DrawCandidates(
    int64_t index, const std::vector<int64_t>& best) const {
  Rng rng =
      Rng::ForIndex(spec_.seed ^ 0xbb67ae85ull, static_cast<uint64_t>(index));
  std::vector<core::Params> out;
  int n = spec_.n_candidates > 0 ? spec_.n_candidates : 1024;
  for (int c = 0; c < n; ++c) {
    core::Params params;
    grid_.AppendCombination(index, params);
    const core::Params* around =
        c % 2 == 1 && !best.empty()
            ? &params_.at(best[static_cast<size_t>(c / 2) % best.size()])
            : nullptr;
    for (const auto& spec : space_.params) {
      if (spec.distribution == core::Distribution::kGrid) continue;
      const core::ParamValue* centre =
          around ? FindParam(*around, spec.name) : nullptr;
      if (!centre || (IsCategorical(spec) && rng.NextUnit() < kLocalRedraw)) {
        params.emplace_back(spec.name, Sample(spec, rng));
      } else if (IsCategorical(spec)) {
        params.emplace_back(spec.name, *centre);
      } else {
        double u1 = 1.0 - rng.NextUnit(), u2 = rng.NextUnit();
        double z = std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2);
        double u = std::clamp(ToUnit(spec, *centre) + kLocalSd * z, 0.0,
                              std::nextafter(1.0, 0.0));
        params.emplace_back(spec.name, FromUnit(spec, u));
      }
    }
    params = InDeclarationOrder(space_, std::move(params));
    DropInactive(space_, params);
    out.push_back(std::move(params));
  }
  return out;
}

// What the model fits: configurations, their levels, their losses.
struct GpSearcher::Training {
  std::vector<const core::Params*> configs;
  std::vector<double> resource;  // joint: each point's level in [0, 1]
  Eigen::VectorXd y;
  double level = 0;           // rung: the level fitted; joint: the top one
  size_t observations = 0;    // before the cap: when to refit
  std::vector<int64_t> best;  // the best trials at `level`, best first
};

std::optional<GpSearcher::Training> GpSearcher::RungTraining() const {
  double time = 0;
  const Level* level = FitLevel(&time);
  if (!level) return std::nullopt;
  Training t;
  t.level = time;
  t.observations = level->size();
  AddPoints(*level, static_cast<size_t>(spec_.max_points), 1.0, t);
  return t;
}

// Every level, highest first, each filling what the cap leaves.
std::optional<GpSearcher::Training> GpSearcher::JointTraining() const {
  size_t total = 0;
  for (const auto& [time, level] : levels_) total += level.size();
  if (levels_.empty() || total < NeededPoints()) return std::nullopt;
  double low = levels_.begin()->first, high = levels_.rbegin()->first;
  bool log_scale = low > 0;
  auto scaled = [&](double time) {
    if (high <= low) return 1.0;
    return log_scale ? std::log(time / low) / std::log(high / low)
                     : (time - low) / (high - low);
  };
  Training t;
  t.level = high;
  t.observations = total;
  auto cap = static_cast<size_t>(spec_.max_points);
  for (auto it = levels_.rbegin(); it != levels_.rend(); ++it) {
    size_t room = cap - t.configs.size();
    if (room == 0) break;
    AddPoints(it->second, room, scaled(it->first), t);
  }
  return t;
}

// Adds at most `cap` trials of `level` (PointsOf) at resource `resource`.
void GpSearcher::AddPoints(const Level& level, size_t cap, double resource,
                           Training& t) const {
  std::vector<int64_t> points = PointsOf(level, cap);
  double worst = -std::numeric_limits<double>::infinity();
  for (int64_t i : points)
    if (std::isfinite(level.at(i))) worst = std::max(worst, level.at(i));
  if (!std::isfinite(worst)) return;  // nothing finite to learn from
  if (t.best.empty()) {
    for (size_t k = 0; k < points.size() && k < kLocalAround; ++k)
      t.best.push_back(points[k]);
  }
  auto n = static_cast<Eigen::Index>(t.configs.size());
  t.y.conservativeResize(n + static_cast<Eigen::Index>(points.size()));
  for (int64_t i : points) {
    double loss = level.at(i);
    t.y(n++) = std::isfinite(loss) ? loss : worst;
    t.configs.push_back(&params_.at(i));
    t.resource.push_back(resource);
  }
}

size_t GpSearcher::NeededPoints() const {
  return std::max<size_t>(static_cast<size_t>(spec_.n_startup),
                          static_cast<size_t>(model_->encoder().dims()) + 2);
}

// The configurations as model inputs: encoded, plus the resource column
// for the joint model (`resource` each, or 1: the top level).
Eigen::MatrixXd GpSearcher::Inputs(const std::vector<const core::Params*>& all,
                                   const std::vector<double>* resource) const {
  Eigen::MatrixXd x = WithResource(model_->encoder().EncodeAll(all));
  if (spec_.joint && resource) {
    for (Eigen::Index i = 0; i < x.rows(); ++i)
      x(i, x.cols() - 1) = (*resource)[static_cast<size_t>(i)];
  }
  return x;
}

// `x` with the joint model's resource column (1: the top level) appended.
Eigen::MatrixXd GpSearcher::WithResource(Eigen::MatrixXd x) const {
  if (!spec_.joint) return x;
  x.conservativeResize(Eigen::NoChange, x.cols() + 1);
  x.col(x.cols() - 1).setOnes();
  return x;
}

std::optional<core::Params> GpSearcher::Suggest(int64_t index) {
  last_level_.reset();
  last_points_ = 0;
  if (candidates_ && candidates_->remaining() == 0) return std::nullopt;
  std::optional<Training> t;
  if (index >= spec_.n_startup)
    t = spec_.joint ? JointTraining() : RungTraining();
  if (!t || t->configs.size() < 2) return SuggestRandom(index);
  t->y = NormalScores(t->y);
  Eigen::MatrixXd x = Inputs(t->configs, &t->resource);
  GaussianProcess gp(x, t->y,
                     model_->HyperFor(t->level, t->observations, x, t->y));
  // The incumbent: the best observed (rung), or the best predicted at the
  // top level among the configurations seen (joint).
  double incumbent = t->y.minCoeff();
  if (spec_.joint) {
    Eigen::VectorXd mean, variance;
    gp.PredictRows(Inputs(t->configs, nullptr), mean, variance);
    incumbent = mean.minCoeff();
  }
  size_t pending = 0;
  std::vector<const core::Params*> unseen = Unseen(index, *t, &pending);
  Eigen::MatrixXd unseen_x = Inputs(unseen, nullptr);
  Eigen::MatrixXd pending_x =
      unseen_x.topRows(static_cast<Eigen::Index>(pending));
  if (!unseen.empty()) {
    Eigen::VectorXd believed;
    gp = gp.WithFantasies(unseen_x, &believed);
    if (pending > 0)
      incumbent = std::min(
          incumbent,
          believed.head(static_cast<Eigen::Index>(pending)).minCoeff());
  }
  std::vector<size_t> ids;
  std::vector<core::Params> drawn;
  Eigen::MatrixXd option_x;
  if (candidates_) {
    ids = ScoredCandidates(index);
    option_x = WithResource(candidate_x_(ids, Eigen::indexing::all));
  } else {
    drawn = DrawCandidates(index, t->best);
    std::vector<const core::Params*> ptrs;
    for (const auto& d : drawn) ptrs.push_back(&d);
    option_x = Inputs(ptrs, nullptr);
  }
  if (option_x.rows() == 0) return std::nullopt;
  size_t chosen = Choose(gp, option_x, pending_x, incumbent);
  last_level_ = t->level;
  last_points_ = static_cast<int>(t->configs.size());
  core::Params params =
      candidates_ ? candidates_->Take(ids[chosen]) : std::move(drawn[chosen]);
  params_[index] = params;
  return params;
}

// The trials the model has no value for, to be believed at their predicted
// mean: the pending ones (no report yet; `*pending` of them, first), then,
// for the rung model, the latest kMaxUnseenBelow of those whose reports all
// lie below the level it fits (stopped there, or still on their way).
std::vector<const core::Params*> GpSearcher::Unseen(int64_t index,
                                                    const Training& t,
                                                    size_t* pending) const {
  std::vector<const core::Params*> unseen;
  for (const auto& [i, params] : params_)
    if (!reported_.count(i) && i != index) unseen.push_back(&params);
  *pending = unseen.size();
  if (spec_.joint) return unseen;
  const Level& fitted = levels_.at(t.level);
  size_t below = 0;
  for (auto it = params_.rbegin();
       it != params_.rend() && below < kMaxUnseenBelow; ++it) {
    if (reported_.count(it->first) && !fitted.count(it->first)) {
      unseen.push_back(&it->second);
      ++below;
    }
  }
  return unseen;
}

// The option of highest expected improvement; one within kMinSeparation of
// a pending trial only where no other has any.
size_t GpSearcher::Choose(const GaussianProcess& gp,
                          const Eigen::MatrixXd& option_x,
                          const Eigen::MatrixXd& pending_x,
                          double incumbent) const {
  Eigen::VectorXd mean, variance;
  gp.PredictRows(option_x, mean, variance);
  size_t chosen = 0;
  double chosen_ei = -1;
  for (Eigen::Index k = 0; k < option_x.rows(); ++k) {
    auto c = static_cast<size_t>(k);
    double ei = ExpectedImprovement(mean(k), variance(k), incumbent);
    if (pending_x.rows() > 0 &&
        (pending_x.rowwise() - option_x.row(k)).rowwise().norm().minCoeff() <
            kMinSeparation) {
      ei = 0;  // next to a pending trial: another worker's point
    }
    if (ei > chosen_ei) chosen = c, chosen_ei = ei;
  }
  return chosen;
}

}  // namespace tuner::schedulers
