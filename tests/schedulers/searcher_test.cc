#include <cmath>
#include <limits>
#include <set>

#include "schedulers/random_searcher.h"
#include "tests/catch.h"

namespace tuner::schedulers {
namespace {

core::ParamSpec Range(const std::string& name, core::Distribution d, double low,
                      double high, double q = 0) {
  core::ParamSpec spec;
  spec.name = name;
  spec.distribution = d;
  spec.low = low;
  spec.high = high;
  spec.q = q;
  return spec;
}

core::ParamSpec List(const std::string& name, core::Distribution d,
                     std::vector<core::ParamValue> values) {
  core::ParamSpec spec;
  spec.name = name;
  spec.distribution = d;
  spec.values = std::move(values);
  return spec;
}

core::SearchSpace Space() {
  using D = core::Distribution;
  return {{Range("lr", D::kLogUniform, 1e-4, 1.0),
           List("hidden", D::kChoice, {int64_t{16}, int64_t{32}, int64_t{64}}),
           Range("dropout", D::kUniform, 0, 0.5),
           Range("layers", D::kRandInt, 1, 4),
           Range("width", D::kLogRandInt, 8, 512),
           Range("wd", D::kQUniform, 0, 1, 0.25),
           List("seed", D::kGrid, {int64_t{1}, int64_t{2}})}};
}

TEST_CASE("random search: same seed, same configs", "[schedulers][searcher]") {
  RandomSearcher a(Space(), 7), b(Space(), 7), c(Space(), 8);
  for (int i = 0; i < 50; ++i) CHECK(*a.Suggest(i) == *b.Suggest(i));
  CHECK(*a.Suggest(0) != *c.Suggest(0));
  // A pure function of the index: asking out of order changes nothing.
  CHECK(*a.Suggest(3) == *b.Suggest(3));
}

TEST_CASE("random search respects every distribution's bounds",
          "[schedulers][searcher]") {
  RandomSearcher searcher(Space(), 1);
  std::set<int64_t> layers, seeds;
  double log_sum = 0;
  const int n = 4000;
  for (int i = 0; i < n; ++i) {
    core::Params p = *searcher.Suggest(i);
    REQUIRE(p.size() == 7);
    CHECK(p[0].first == "lr");  // declaration order
    double lr = std::get<double>(p[0].second);
    CHECK((lr >= 1e-4 && lr < 1.0));
    log_sum += std::log10(lr);
    double dropout = std::get<double>(p[2].second);
    CHECK((dropout >= 0 && dropout < 0.5));
    layers.insert(std::get<int64_t>(p[3].second));
    int64_t width = std::get<int64_t>(p[4].second);
    CHECK((width >= 8 && width <= 512));
    double wd = std::get<double>(p[5].second);
    CHECK(std::fmod(wd, 0.25) == 0);
    seeds.insert(std::get<int64_t>(p[6].second));
    CHECK(std::get<int64_t>(p[6].second) == (i % 2 == 0 ? 1 : 2));
  }
  CHECK(layers == std::set<int64_t>{1, 2, 3, 4});  // inclusive bounds
  CHECK(std::abs(log_sum / n - (-2.0)) < 0.1);     // uniform in log space
}

TEST_CASE("grid search enumerates the cross product once",
          "[schedulers][searcher]") {
  using D = core::Distribution;
  core::SearchSpace space{
      {List("a", D::kGrid, {int64_t{1}, int64_t{2}}),
       List("b", D::kChoice,
            {std::string("x"), std::string("y"), std::string("z")})}};
  GridSearcher grid(space);
  CHECK(grid.size() == 6);
  CHECK(*grid.Suggest(0) ==
        core::Params{{"a", int64_t{1}}, {"b", std::string("x")}});
  CHECK(*grid.Suggest(5) ==
        core::Params{{"a", int64_t{2}}, {"b", std::string("z")}});
  CHECK_FALSE(grid.Suggest(6).has_value());
}

TEST_CASE("64 two-value grid params: the grid size saturates, never 0",
          "[schedulers][searcher]") {
  using D = core::Distribution;
  core::SearchSpace space;
  for (int i = 0; i < 64; ++i) {
    space.params.push_back(
        List("g" + std::to_string(i), D::kGrid, {int64_t{0}, int64_t{1}}));
  }
  // 2^64 combinations: the size saturates rather than overflow int64_t to 0
  // (index % 0 would be SIGFPE).
  GridSearcher grid(space);
  CHECK(grid.size() == std::numeric_limits<int64_t>::max());
  RandomSearcher random(space, 1);
  for (int64_t index : {int64_t{0}, int64_t{5}, int64_t{1} << 40}) {
    auto params = random.Suggest(index);
    REQUIRE(params.has_value());
    REQUIRE(params->size() == 64);
    // Odometer order: the last param is the lowest bit of the index.
    CHECK(params->back().second == core::ParamValue(index & 1));
    CHECK(grid.Suggest(index) == params);
  }
}

}  // namespace
}  // namespace tuner::schedulers
