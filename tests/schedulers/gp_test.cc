// The Gaussian process, expected improvement, and the gp searcher.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <set>

#include "schedulers/candidate_set.h"
#include "schedulers/gaussian_process.h"
#include "schedulers/gp_searcher.h"
#include "schedulers/random_searcher.h"

namespace tuner::schedulers {
namespace {

// Matérn 5/2 at scaled distance r, written out by hand.
double M52(double r) {
  return (1 + std::sqrt(5.0) * r + 5.0 / 3.0 * r * r) *
         std::exp(-std::sqrt(5.0) * r);
}

core::SearchSpace Unit1d() {
  core::ParamSpec x;
  x.name = "x";
  x.distribution = core::Distribution::kUniform;
  x.low = 0;
  x.high = 1;
  return core::SearchSpace{{x}};
}

double X(const core::Params& p) { return std::get<double>(p.at(0).second); }

}  // namespace

TEST_CASE("gp: the posterior at a point matches the closed form of two points",
          "[gp]") {
  GpHyper h = GpHyper::Default(1);  // lengthscale 0.5, signal 1
  h.log_noise = std::log(1e-3);
  Eigen::MatrixXd x(2, 1);
  x << 0.0, 0.5;
  Eigen::VectorXd y(2);
  y << 3.0, 5.0;  // standardised: -1, +1 (mean 4, scale 1)
  GaussianProcess gp(x, y, h);
  // K = [[1 + s, m], [m, 1 + s]], k* = (M52(0.2), M52(0.8)) at x* = 0.1.
  double s = 1e-3 + 1e-8, m = M52(1.0), a = M52(0.2), b = M52(0.8);
  double det = (1 + s) * (1 + s) - m * m;
  // K^-1 = [[1 + s, -m], [-m, 1 + s]] / det.
  double w1 = ((1 + s) * a - m * b) / det, w2 = ((1 + s) * b - m * a) / det;
  double mean = 4 + (w1 * -1 + w2 * 1);
  double var = 1 - (a * w1 + b * w2);
  GpPrediction p = gp.Predict(Eigen::VectorXd::Constant(1, 0.1));
  CHECK(p.mean == Approx(mean).epsilon(1e-9));
  CHECK(p.variance == Approx(var).epsilon(1e-7));
  // Far from the data: the prior (the mean of y, the signal variance).
  GpPrediction far = gp.Predict(Eigen::VectorXd::Constant(1, 50.0));
  CHECK(far.mean == Approx(4.0));
  CHECK(far.variance == Approx(1.0));
  // log p(y) = -y'K^-1y/2 - log|K|/2 - log(2 pi).
  double quad = ((1 + s) * 2 + 2 * m) / det;  // y = (-1, 1)
  double lml = -0.5 * quad - 0.5 * std::log(det) - std::log(2 * M_PI);
  CHECK(gp.LogMarginalLikelihood() == Approx(lml).epsilon(1e-9));
}

TEST_CASE("gp: expected improvement matches its closed form", "[gp]") {
  CHECK(ExpectedImprovement(0, 1, 0) == Approx(0.3989422804));
  // z = 0.25: 0.5 Phi(0.25) + 2 phi(0.25).
  CHECK(ExpectedImprovement(0.5, 4, 1) ==
        Approx(0.5 * 0.5987063257 + 2 * 0.3866681168));
  CHECK(ExpectedImprovement(1, 0, 2) == 1.0);
  CHECK(ExpectedImprovement(2, 0, 1) == 0.0);
  CHECK(ExpectedImprovement(10, 1, 0) < 1e-20);
}

TEST_CASE("gp: normal scores follow the ranks, ties sharing theirs", "[gp]") {
  Eigen::VectorXd y(3);
  y << 3, 1, 2;  // ranks 2, 0, 1: quantiles of 5/6, 1/6, 1/2
  Eigen::VectorXd s = NormalScores(y);
  CHECK(s(0) == Approx(0.9674215661));
  CHECK(s(1) == Approx(-0.9674215661));
  CHECK(s(2) == Approx(0.0).margin(1e-12));
  Eigen::VectorXd tied(4);
  tied << 1, 1, 5, 0;  // ranks 1.5, 1.5, 3, 0: of 2/4, 2/4, 3.5/4, 0.5/4
  s = NormalScores(tied);
  CHECK(s(0) == Approx(0.0).margin(1e-12));
  CHECK(s(1) == Approx(0.0).margin(1e-12));
  CHECK(s(2) == Approx(1.1503493804));
  CHECK(s(3) == Approx(-1.1503493804));
}

TEST_CASE("gp: a fantasy keeps the mean and shrinks the variance where it is",
          "[gp]") {
  Eigen::MatrixXd x(3, 1);
  x << 0.1, 0.4, 0.9;
  Eigen::VectorXd y(3);
  y << 1.0, 0.2, 0.7;
  GpHyper h = GpHyper::Default(1);
  h.log_lengthscale(0) = std::log(0.1);
  h.log_noise = std::log(1e-4);
  GaussianProcess gp(x, y, h);
  Eigen::MatrixXd pending = Eigen::MatrixXd::Constant(1, 1, 0.65);
  GaussianProcess more = gp.WithFantasies(pending);
  GpPrediction before = gp.Predict(pending.row(0).transpose());
  GpPrediction after = more.Predict(pending.row(0).transpose());
  CHECK(after.mean == Approx(before.mean).epsilon(1e-6));
  CHECK(after.variance < 0.05 * before.variance);
  CHECK(more.size() == 4);
  // The value it was believed to have: the mean there.
  Eigen::VectorXd believed;
  gp.WithFantasies(pending, &believed);
  CHECK(believed(0) == Approx(before.mean));
}

TEST_CASE(
    "gp: fitting raises the marginal likelihood and finds the relevant "
    "input",
    "[gp]") {
  // y depends on the first input only.
  Eigen::MatrixXd x(24, 2);
  Eigen::VectorXd y(24);
  for (int i = 0; i < 24; ++i) {
    x(i, 0) = (i % 6) / 5.0;
    x(i, 1) = (i / 6) / 3.0;
    y(i) = std::sin(6 * x(i, 0));
  }
  GpHyper start = GpHyper::Default(2);
  GpHyper fitted = GaussianProcess::FitHyper(x, y, start, 80);
  double before = GaussianProcess(x, y, start).LogMarginalLikelihood();
  double after = GaussianProcess(x, y, fitted).LogMarginalLikelihood();
  CHECK(after > before);
  CHECK(fitted.log_lengthscale(1) > fitted.log_lengthscale(0) + 1);
  // Deterministic.
  GpHyper again = GaussianProcess::FitHyper(x, y, start, 80);
  CHECK(again.log_lengthscale == fitted.log_lengthscale);
}

TEST_CASE(
    "gp searcher: random until a level has enough points, the same as "
    "random search",
    "[gp]") {
  core::SearcherSpec spec;
  spec.seed = 11;
  spec.n_startup = 5;
  GpSearcher gp(Unit1d(), spec, core::Mode::kMin);
  RandomSearcher random(Unit1d(), 11);
  for (int i = 0; i < 4; ++i) {
    auto p = gp.Suggest(i);
    CHECK(*p == *random.Suggest(i));
    CHECK_FALSE(gp.last_level());
    gp.Observe(i, *p, 1, X(*p));
  }
  // 4 points at level 1: still fewer than max(n_startup, dims + 2) = 5.
  CHECK(*gp.Suggest(5) == *random.Suggest(5));
  gp.Observe(5, *random.Suggest(5), 1, 0.5);
  gp.Suggest(6);
  CHECK(gp.last_level() == 1.0);
  CHECK(gp.last_points() == 5);
}

TEST_CASE(
    "gp searcher: finds the minimum, fits the highest level with "
    "enough points, and is deterministic",
    "[gp]") {
  core::SearcherSpec spec;
  spec.seed = 3;
  spec.n_startup = 5;
  auto run = [&] {
    GpSearcher gp(Unit1d(), spec, core::Mode::kMin);
    std::vector<double> xs;
    for (int i = 0; i < 30; ++i) {
      auto p = gp.Suggest(i);
      xs.push_back(X(*p));
      double f = (X(*p) - 0.3) * (X(*p) - 0.3);
      gp.Observe(i, *p, 1, f + 1);              // a low rung, shifted
      if (i % 3 == 0) gp.Observe(i, *p, 9, f);  // few reach the top
    }
    return xs;
  };
  auto xs = run();
  CHECK(xs == run());
  double near = 0;
  for (size_t i = 20; i < xs.size(); ++i) near += std::abs(xs[i] - 0.3) < 0.1;
  // Of the last 10 suggestions; uniform draws would put 2 there.
  CHECK(near >= 5);
}

TEST_CASE(
    "gp searcher: trials stopped below its level are not proposed again and "
    "again",
    "[gp]") {
  core::SearcherSpec spec;
  spec.seed = 3;
  spec.n_startup = 5;
  GpSearcher gp(Unit1d(), spec, core::Mode::kMin);
  std::vector<double> xs, low_rung;
  for (int i = 0; i < 30; ++i) {
    auto p = gp.Suggest(i);
    xs.push_back(X(*p));
    double f = (X(*p) - 0.3) * (X(*p) - 0.3);
    gp.Observe(i, *p, 1, f + 1);  // a low rung, shifted
    low_rung.push_back(f + 1);
    // As asha would: the best third at the low rung reach the top.
    auto beaten = std::count_if(low_rung.begin(), low_rung.end(),
                                [&](double v) { return v < f + 1; });
    if (3 * beaten < static_cast<int64_t>(low_rung.size()))
      gp.Observe(i, *p, 9, f);
  }
  // The edges, stopped at the low rung, never reach the top: the model must
  // not keep asking for them for their unexplored variance.
  int repeats = 0, near = 0;
  for (size_t i = 20; i < xs.size(); ++i) {
    for (size_t j = 0; j < i; ++j) repeats += std::abs(xs[i] - xs[j]) < 1e-3;
    near += std::abs(xs[i] - 0.3) < 0.1;
  }
  CHECK(repeats <= 2);
  CHECK(near >= 3);
}

TEST_CASE("gp searcher: trials not yet reported spread the next suggestions",
          "[gp]") {
  core::SearcherSpec spec;
  spec.seed = 5;
  spec.n_startup = 5;
  GpSearcher gp(Unit1d(), spec, core::Mode::kMin);
  for (int i = 0; i < 6; ++i) {  // a bumpy function: the model is unsure
    double x = i / 5.0;
    gp.Observe(i, {{"x", x}}, 1, std::sin(13 * x) * x);
  }
  std::vector<double> batch;
  for (int i = 6; i < 12; ++i) batch.push_back(X(*gp.Suggest(i)));
  std::sort(batch.begin(), batch.end());
  for (size_t i = 1; i < batch.size(); ++i)
    CHECK(batch[i] - batch[i - 1] > 0.005);
  CHECK(batch.back() - batch.front() > 0.1);
}

TEST_CASE(
    "gp searcher: how far off a diverged trial lands does not change the "
    "suggestions",
    "[gp]") {
  core::SearcherSpec spec;
  spec.seed = 11;
  spec.n_startup = 5;
  auto run = [&](double diverged) {
    GpSearcher gp(Unit1d(), spec, core::Mode::kMin);
    std::vector<double> xs;
    for (int i = 0; i < 16; ++i) {
      auto p = gp.Suggest(i);
      xs.push_back(X(*p));
      double f = std::sin(9 * X(*p)) + X(*p);
      gp.Observe(i, *p, 1, i == 2 ? diverged : f);  // trial 2 blew up
    }
    return xs;
  };
  // Either way trial 2 is the worst; only its distance to the rest differs.
  CHECK(run(10) == run(1e6));
}

TEST_CASE(
    "searchers restricted to candidates take each once, restored ones "
    "included",
    "[gp]") {
  std::vector<core::Params> list;
  for (int i = 0; i < 20; ++i) list.push_back({{"x", i / 19.0}});
  for (int kind = 0; kind < 2; ++kind) {
    core::SearcherSpec spec;
    spec.seed = 9;
    spec.n_startup = 3;
    std::unique_ptr<Searcher> s;
    if (kind == 0)
      s = std::make_unique<GpSearcher>(Unit1d(), spec, core::Mode::kMax);
    else
      s = std::make_unique<RandomSearcher>(Unit1d(), 9);
    REQUIRE(s->RestrictTo(list));
    s->Observe(100, list[7], 1, 0.0);  // a restored trial took row 7
    std::set<double> seen{X(list[7])};
    for (int i = 0; i < 19; ++i) {
      auto p = s->Suggest(i);
      REQUIRE(p);
      CHECK(seen.insert(X(*p)).second);
      s->Observe(i, *p, 1, X(*p));
    }
    CHECK_FALSE(s->Suggest(19));
  }
}

TEST_CASE("random search restricted to candidates is a seeded permutation",
          "[gp]") {
  std::vector<core::Params> list;
  for (int i = 0; i < 50; ++i) list.push_back({{"x", i / 49.0}});
  RandomSearcher a(Unit1d(), 1), b(Unit1d(), 1), c(Unit1d(), 2);
  a.RestrictTo(list), b.RestrictTo(list), c.RestrictTo(list);
  int same = 0;
  for (int i = 0; i < 50; ++i) {
    auto pa = a.Suggest(i);
    CHECK(*pa == *b.Suggest(i));
    same += *pa == *c.Suggest(i);
  }
  CHECK(same < 10);
  CandidateSet set(list);
  CHECK(set.TakeEqual(list[3]));
  CHECK_FALSE(set.TakeEqual(list[3]));
  CHECK(set.remaining() == 49);
  Rng rng(5);
  auto some = set.UntakenAtMost(10, rng);
  CHECK(some.size() == 10);
  CHECK(std::is_sorted(some.begin(), some.end()));
  CHECK(std::find(some.begin(), some.end(), 3) == some.end());  // taken
  CHECK(set.UntakenAtMost(100, rng) == set.Untaken());
}

TEST_CASE(
    "gp searcher: rebuilt from the stored reports in any order, it "
    "suggests the same",
    "[gp]") {
  core::SearcherSpec spec;
  spec.seed = 4;
  spec.n_startup = 5;
  struct Report {
    int64_t index;
    double x, time, value;
  };
  std::vector<Report> reports;
  for (int i = 0; i < 16; ++i) {
    double x = (i * 7 % 16) / 15.0;
    reports.push_back({i, x, 1, std::cos(5 * x) + 1});
    if (i % 3 == 0) reports.push_back({i, x, 3, std::cos(5 * x)});
  }
  auto rebuilt = [&](bool reversed) {
    GpSearcher gp(Unit1d(), spec, core::Mode::kMin);
    auto order = reports;
    if (reversed) std::reverse(order.begin(), order.end());
    for (const auto& r : order)
      gp.Observe(r.index, {{"x", r.x}}, r.time, r.value);
    auto next = gp.Suggest(16);
    CHECK(gp.last_level() == 3.0);  // 6 points: max(n_startup, dims + 2)
    return X(*next);
  };
  CHECK(rebuilt(false) == rebuilt(true));
}

}  // namespace tuner::schedulers
