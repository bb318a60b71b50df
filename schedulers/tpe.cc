#include "schedulers/tpe.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <utility>

#include "schedulers/random_searcher.h"
#include "schedulers/ranked_rung.h"

namespace tuner::schedulers {

namespace {

bool IsNumeric(const core::ParamSpec& spec) {
  return spec.distribution != core::Distribution::kChoice &&
         spec.distribution != core::Distribution::kGrid;
}

double NormalCdf(double z) { return 0.5 * std::erfc(-z / std::numbers::sqrt2); }

// A mixture of Gaussians truncated to [0, 1]: one kernel per observation
// plus a wide prior kernel at 0.5.
class Parzen {
 public:
  explicit Parzen(const std::vector<double>& points) {
    double n = static_cast<double>(points.size());
    double mean = 0, var = 0;
    for (double p : points) mean += p / n;
    for (double p : points) var += (p - mean) * (p - mean) / n;
    // Scott's rule, floored as Optuna's "magic clip" does: few points give
    // wide kernels, so a handful of good trials does not collapse the search.
    double h = std::clamp(1.06 * std::sqrt(var) * std::pow(n, -0.2),
                          1.0 / std::min(100.0, n + 1), 1.0);
    for (double p : points) Add(p, h, 1.0);
    Add(0.5, 1.0, 1.0);
  }
  double Density(double x) const {
    double sum = 0;
    for (const auto& k : kernels_) {
      double z = (x - k.mu) / k.sigma;
      sum += k.weight * std::exp(-0.5 * z * z) / (k.sigma * k.mass);
    }
    return sum / total_;
  }
  double Draw(Rng& rng) const {
    double pick = rng.NextUnit() * total_;
    const Kernel* k = &kernels_.back();
    for (const auto& c : kernels_) {
      if ((pick -= c.weight) < 0) {
        k = &c;
        break;
      }
    }
    for (int attempt = 0; attempt < 32; ++attempt) {
      double u1 = 1.0 - rng.NextUnit(), u2 = rng.NextUnit();
      double z = std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2);
      double x = k->mu + k->sigma * z;
      if (x >= 0 && x < 1) return x;
    }
    return std::clamp(k->mu, 0.0, std::nextafter(1.0, 0.0));
  }

 private:
  struct Kernel {
    double mu, sigma, weight, mass;
  };
  void Add(double mu, double sigma, double weight) {
    double mass = NormalCdf((1 - mu) / sigma) - NormalCdf(-mu / sigma);
    kernels_.push_back({mu, sigma, weight, std::max(mass, 1e-12)});
    total_ += weight;
  }
  std::vector<Kernel> kernels_;
  double total_ = 0;
};

std::vector<double> CountsOf(const core::ParamSpec& spec,
                             const std::vector<const core::ParamValue*>& vs) {
  std::vector<double> counts(spec.values.size(), 1.0);  // Laplace prior
  for (const auto* v : vs) {
    for (size_t i = 0; i < spec.values.size(); ++i)
      if (spec.values[i] == *v) counts[i] += 1;
  }
  return counts;
}

}  // namespace

TpeSearcher::TpeSearcher(core::SearchSpace space,
                         const core::SearcherSpec& spec, core::Mode mode)
    : space_(std::move(space)),
      spec_(spec),
      mode_(mode),
      grid_(GridAxes(space_, false)),
      random_(space_, spec.seed) {}

void TpeSearcher::Observe(int64_t index, const core::Params& params,
                          double time, double value) {
  levels_[time][index] = Observation{params, Internal(value, mode_)};
  if (candidates_ && known_.insert(index).second)
    candidates_->TakeEqual(params);
}

bool TpeSearcher::RestrictTo(std::vector<core::Params> candidates) {
  candidates_.emplace(std::move(candidates));
  return true;
}

const TpeSearcher::Level* TpeSearcher::FitLevel() const {
  size_t dims = 0;
  for (const auto& p : space_.params)
    dims += p.distribution != core::Distribution::kGrid;
  size_t needed = std::max<size_t>(spec_.n_startup, dims + 2);
  for (auto it = levels_.rbegin(); it != levels_.rend(); ++it) {
    if (it->second.size() >= needed) return &it->second;
  }
  return nullptr;
}

std::optional<core::Params> TpeSearcher::Suggest(int64_t index) {
  const Level* level = index >= spec_.n_startup ? FitLevel() : nullptr;
  if (candidates_) known_.insert(index);
  if (!level) {
    if (candidates_) return SuggestCandidate(index, nullptr, nullptr);
    return random_.Suggest(index);
  }
  std::vector<const Observation*> sorted;
  for (const auto& [i, obs] : *level) sorted.push_back(&obs);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](auto* a, auto* b) { return a->loss < b->loss; });
  auto n_good = static_cast<size_t>(
      std::ceil(spec_.gamma * static_cast<double>(sorted.size())));
  n_good = std::clamp<size_t>(n_good, 1, sorted.size() - 1);
  std::vector<const Observation*> good(sorted.begin(), sorted.begin() + n_good);
  std::vector<const Observation*> bad(sorted.begin() + n_good, sorted.end());
  if (candidates_) return SuggestCandidate(index, &good, &bad);

  Rng rng = Rng::ForIndex(spec_.seed ^ 0x7be5ull, static_cast<uint64_t>(index));
  core::Params params;
  grid_.AppendCombination(index, params);
  for (const auto& spec : space_.params) {
    if (spec.distribution == core::Distribution::kGrid) continue;
    params.emplace_back(spec.name, SuggestParam(spec, good, bad, rng));
  }
  params = InDeclarationOrder(space_, std::move(params));
  DropInactive(space_, params);
  return params;
}

core::ParamValue TpeSearcher::SuggestParam(
    const core::ParamSpec& spec, const std::vector<const Observation*>& good,
    const std::vector<const Observation*>& bad, Rng& rng) const {
  std::vector<const core::ParamValue*> g, b;
  for (auto* o : good)
    if (auto* v = FindParam(o->params, spec.name)) g.push_back(v);
  for (auto* o : bad)
    if (auto* v = FindParam(o->params, spec.name)) b.push_back(v);
  if (g.empty()) return Sample(spec, rng);
  if (!IsNumeric(spec)) {
    std::vector<double> pg = CountsOf(spec, g), pb = CountsOf(spec, b);
    double tg = 0, tb = 0;
    for (double c : pg) tg += c;
    for (double c : pb) tb += c;
    size_t best = 0;
    double best_score = -std::numeric_limits<double>::infinity();
    for (int c = 0; c < Candidates(); ++c) {
      double pick = rng.NextUnit() * tg;
      size_t i = 0;
      while (i + 1 < pg.size() && (pick -= pg[i]) >= 0) ++i;
      double score = (pg[i] / tg) / (pb[i] / tb);
      if (score > best_score) best = i, best_score = score;
    }
    return spec.values[best];
  }
  std::vector<double> ug, ub;
  for (auto* v : g) ug.push_back(ToUnit(spec, *v));
  for (auto* v : b) ub.push_back(ToUnit(spec, *v));
  Parzen lg(ug), lb(ub);
  double best = 0.5;
  double best_score = -std::numeric_limits<double>::infinity();
  for (int c = 0; c < Candidates(); ++c) {
    double x = lg.Draw(rng);
    double score = std::log(lg.Density(x)) - std::log(lb.Density(x));
    if (score > best_score) best = x, best_score = score;
  }
  return FromUnit(spec, best);
}

// Scores untaken candidates by the summed log density ratio of their
// params; without a model (good == nullptr), draws one uniformly.
std::optional<core::Params> TpeSearcher::SuggestCandidate(
    int64_t index, const std::vector<const Observation*>* good,
    const std::vector<const Observation*>* bad) {
  Rng rng =
      Rng::ForIndex(spec_.seed ^ 0x3c6ef372ull, static_cast<uint64_t>(index));
  if (!good) {
    auto i = candidates_->DrawUntaken(rng);
    if (!i) return std::nullopt;
    return candidates_->Take(*i);
  }
  constexpr size_t kMaxScored = 4096;
  std::vector<size_t> ids = candidates_->UntakenAtMost(kMaxScored, rng);
  if (ids.empty()) return std::nullopt;
  std::vector<double> score(ids.size(), 0.0);
  for (const auto& spec : space_.params) {
    std::vector<const core::ParamValue*> g, b;
    for (auto* o : *good)
      if (auto* v = FindParam(o->params, spec.name)) g.push_back(v);
    for (auto* o : *bad)
      if (auto* v = FindParam(o->params, spec.name)) b.push_back(v);
    if (g.empty()) continue;
    if (!IsNumeric(spec)) {
      std::vector<double> pg = CountsOf(spec, g), pb = CountsOf(spec, b);
      double tg = 0, tb = 0;
      for (double c : pg) tg += c;
      for (double c : pb) tb += c;
      for (size_t k = 0; k < ids.size(); ++k) {
        auto* v = FindParam(candidates_->at(ids[k]), spec.name);
        for (size_t i = 0; v && i < spec.values.size(); ++i)
          if (spec.values[i] == *v)
            score[k] += std::log(pg[i] / tg) - std::log(pb[i] / tb);
      }
      continue;
    }
    std::vector<double> ug, ub;
    for (auto* v : g) ug.push_back(ToUnit(spec, *v));
    for (auto* v : b) ub.push_back(ToUnit(spec, *v));
    Parzen lg(ug), lb(ub);
    for (size_t k = 0; k < ids.size(); ++k) {
      auto* v = FindParam(candidates_->at(ids[k]), spec.name);
      if (!v) continue;
      double u = ToUnit(spec, *v);
      score[k] += std::log(lg.Density(u)) - std::log(lb.Density(u));
    }
  }
  size_t best = static_cast<size_t>(
      std::max_element(score.begin(), score.end()) - score.begin());
  return candidates_->Take(ids[best]);
}

}  // namespace tuner::schedulers
