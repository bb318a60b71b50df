// Sobol' points, conditional parameters, and TPE against random search.
#include <algorithm>
#include <cmath>
#include <set>

#include "schedulers/asha.h"
#include "schedulers/random_searcher.h"
#include "schedulers/sobol.h"
#include "schedulers/tpe.h"
#include "tests/catch.h"
#include "tests/schedulers/simulate.h"

namespace tuner::schedulers {
namespace {

TEST_CASE("scrambled sobol points stratify every dimension",
          "[schedulers][sobol]") {
  SobolSequence sobol(7);
  constexpr int kPoints = 64;
  for (int dim = 0; dim < SobolSequence::kMaxDims; ++dim) {
    std::set<int> cells;
    for (int i = 0; i < kPoints; ++i) {
      double u = sobol.At(i, dim);
      REQUIRE(u >= 0);
      REQUIRE(u < 1);
      cells.insert(static_cast<int>(u * kPoints));
    }
    INFO("dimension " << dim);
    CHECK(cells.size() == kPoints);  // one point in each 1/64 interval
  }
  // The first two dimensions form a (0, m, 2)-net: one point per 8x8 cell.
  std::set<int> cells;
  for (int i = 0; i < kPoints; ++i)
    cells.insert(static_cast<int>(sobol.At(i, 0) * 8) * 8 +
                 static_cast<int>(sobol.At(i, 1) * 8));
  CHECK(cells.size() == kPoints);
  CHECK(SobolSequence(7).At(5, 3) == sobol.At(5, 3));
  CHECK(SobolSequence(8).At(5, 3) != sobol.At(5, 3));
}

core::SearchSpace OptimizerSpace() {
  core::SearchSpace space;
  space.params.push_back({"opt",
                          core::Distribution::kChoice,
                          0,
                          0,
                          0,
                          {std::string("sgd"), std::string("adam")},
                          {}});
  core::ParamSpec momentum{
      "momentum", core::Distribution::kUniform, 0, 1, 0, {}, {}};
  momentum.when = core::Condition{"opt", {std::string("sgd")}};
  space.params.push_back(momentum);
  return space;
}

TEST_CASE("a conditional parameter is sampled only when its condition holds",
          "[schedulers][conditional]") {
  RandomSearcher random(OptimizerSpace(), 3);
  SobolSearcher sobol(OptimizerSpace(), 3);
  for (Searcher* searcher :
       {static_cast<Searcher*>(&random), static_cast<Searcher*>(&sobol)}) {
    int with = 0;
    for (int i = 0; i < 200; ++i) {
      core::Params p = *searcher->Suggest(i);
      bool sgd = std::get<std::string>(p[0].second) == "sgd";
      CHECK(p.size() == (sgd ? 2u : 1u));
      with += sgd;
    }
    CHECK(with > 60);
    CHECK(with < 140);
  }
}

// The synthetic benchmark: minimise
//   (log10(lr) + 2.5)^2 / 4 + (momentum - 0.7)^2 + 2 / (1 + t)
// over lr log-uniform in [1e-5, 1] and momentum uniform in [0, 1], at
// t = 1..27 under ASHA (grace 1, rf 3), 60 trials, one worker. The curve
// keeps its ranking over t, as ASHA assumes; it has no noise.
core::SearchSpace BenchmarkSpace() {
  core::SearchSpace space;
  space.params.push_back(
      {"lr", core::Distribution::kLogUniform, 1e-5, 1, 0, {}, {}});
  space.params.push_back(
      {"momentum", core::Distribution::kUniform, 0, 1, 0, {}, {}});
  return space;
}

double Loss(const core::Params& p, double t) {
  double lr = std::get<double>(p[0].second);
  double m = std::get<double>(p[1].second);
  double a = std::log10(lr) + 2.5;
  return a * a / 4 + (m - 0.7) * (m - 0.7) + 2 / (1 + t);
}

double BestFinal(Searcher& searcher) {
  core::SchedulerSpec spec;
  spec.max_t = 27;
  spec.mode = core::Mode::kMin;
  AshaScheduler asha(spec);
  Simulation sim = Simulate(asha, searcher, 60, 27, Loss);
  double best = INFINITY;
  for (const auto& [trial, value] : sim.completed) best = std::min(best, value);
  return best;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return (v[(v.size() - 1) / 2] + v[v.size() / 2]) / 2;
}

TEST_CASE("tpe beats random under asha on the median final value over 20 seeds",
          "[schedulers][tpe]") {
  std::vector<double> tpe, random;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    core::SearcherSpec spec{core::SearcherType::kTpe, seed};
    TpeSearcher t(BenchmarkSpace(), spec, core::Mode::kMin);
    RandomSearcher r(BenchmarkSpace(), seed);
    tpe.push_back(BestFinal(t) - 2.0 / 28);  // regret over the optimum
    random.push_back(BestFinal(r) - 2.0 / 28);
  }
  INFO("median regret tpe " << Median(tpe) << " random " << Median(random));
  CHECK(Median(tpe) < Median(random));
}

TEST_CASE("tpe starts as random search and stays in bounds",
          "[schedulers][tpe]") {
  core::SearcherSpec spec{core::SearcherType::kTpe, 4};
  TpeSearcher tpe(BenchmarkSpace(), spec, core::Mode::kMin);
  RandomSearcher random(BenchmarkSpace(), 4);
  for (int i = 0; i < 10; ++i) CHECK(*tpe.Suggest(i) == *random.Suggest(i));
  for (int i = 0; i < 30; ++i)
    tpe.Observe(i, *random.Suggest(i), 1, Loss(*random.Suggest(i), 1));
  for (int i = 30; i < 80; ++i) {
    core::Params p = *tpe.Suggest(i);
    double lr = std::get<double>(p[0].second);
    double m = std::get<double>(p[1].second);
    CHECK(lr >= 1e-5);
    CHECK(lr <= 1);
    CHECK(m >= 0);
    CHECK(m < 1);
  }
}

}  // namespace
}  // namespace tuner::schedulers
