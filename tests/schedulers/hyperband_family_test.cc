// Brackets, promotion-type ASHA, synchronous HyperBand, the median rule.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>

#include "schedulers/asha.h"
#include "schedulers/factory.h"
#include "schedulers/hyperband.h"
#include "schedulers/median.h"
#include "schedulers/random_searcher.h"
#include "tests/catch.h"
#include "tests/schedulers/simulate.h"

namespace tuner::schedulers {
namespace {

core::SchedulerSpec Spec(double max_t, bool promotion = false) {
  core::SchedulerSpec spec;
  spec.max_t = max_t;
  spec.promotion = promotion;
  spec.mode = core::Mode::kMax;
  return spec;
}

core::SearchSpace QSpace() {
  core::SearchSpace space;
  space.params.push_back({"q", core::Distribution::kUniform, 0, 1, 0, {}, {}});
  return space;
}

// q = 1 - i / n: every trial is worse than all earlier ones.
class BestFirst : public Searcher {
 public:
  explicit BestFirst(int64_t n) : n_(n) {}
  std::optional<core::Params> Suggest(int64_t i) override {
    return core::Params{{"q", 1.0 - static_cast<double>(i) / n_}};
  }

 private:
  int64_t n_;
};

double Q(const core::Params& p) { return std::get<double>(p[0].second); }
double Learning(const core::Params& p, double t) { return Q(p) * t / (t + 1); }

// Trials recorded (paused or judged) at each milestone.
std::map<double, std::set<core::TrialId>> Reached(const Simulation& sim) {
  std::map<double, std::set<core::TrialId>> out;
  for (const auto& [trial, r] : sim.records)
    if (r.verdict != core::RungVerdict::kPromote)
      out[r.milestone].insert(trial);
  return out;
}

TEST_CASE("brackets start at grace * rf^b and get HyperBand's shares",
          "[schedulers][brackets]") {
  core::SchedulerSpec spec = Spec(27);
  spec.brackets = 4;
  auto brackets = PlanBrackets(spec);
  REQUIRE(brackets.size() == 4);
  CHECK(brackets[0].milestones == std::vector<double>{1, 3, 9});
  CHECK(brackets[1].milestones == std::vector<double>{3, 9});
  CHECK(brackets[3].milestones.empty());
  // ceil((s_max + 1) / (s + 1) * rf^s) with s_max = 3.
  CHECK(brackets[0].trials == 27);
  CHECK(brackets[1].trials == 12);
  CHECK(brackets[2].trials == 6);
  CHECK(brackets[3].trials == 4);
  spec.brackets = 9;  // clamped to the levels there are
  CHECK(PlanBrackets(spec).size() == 4);

  std::vector<int64_t> counts(4, 0), window(4, 0);
  for (int64_t i = 0; i < 49000; ++i) {
    int b = BracketOf(brackets, 99, i);
    ++counts[b];
    ++window[b];
    if ((i + 1) % 49 == 0) {
      for (int k = 0; k < 4; ++k)
        CHECK(std::abs(window[k] - brackets[k].trials) <= 3);
      std::fill(window.begin(), window.end(), 0);
    }
  }
  for (int k = 0; k < 4; ++k)
    CHECK(std::abs(counts[k] - 1000 * brackets[k].trials) <= 25);
  CHECK(BracketOf(brackets, 99, 7) == BracketOf(brackets, 99, 7));
}

TEST_CASE("async hyperband judges each trial in its own bracket only",
          "[schedulers][brackets]") {
  core::SchedulerSpec spec = Spec(27);
  spec.brackets = 2;
  spec.seed = 1;
  AshaScheduler asha(spec);
  for (core::TrialId id = 1; id <= 60; ++id) {
    int bracket = asha.OnAdd(id, id - 1);
    core::Decision d = asha.OnReport(id, 3, static_cast<double>(id));
    REQUIRE_FALSE(d.rungs.empty());
    CHECK(d.rungs.front().bracket == bracket);
    CHECK(d.rungs.front().milestone == (bracket == 0 ? 1 : 3));
  }
}

TEST_CASE(
    "promotion asha with one worker selects what synchronous successive "
    "halving selects",
    "[schedulers][promotion]") {
  // Best-first arrivals: ASHA's early promotions are never mistaken, so
  // with one worker it must promote exactly the trials SH keeps.
  BestFirst a(27), b(27);
  AshaScheduler asha(Spec(27, true));
  core::SchedulerSpec sh_spec = Spec(27);
  sh_spec.brackets = 1;
  HyperbandScheduler sh(sh_spec);
  Simulation async = Simulate(asha, a, 27, 27, Learning);
  Simulation sync = Simulate(sh, b, 27, 27, Learning);
  CHECK(Reached(async) == Reached(sync));
  CHECK(Reached(sync)[3].size() == 9);
  CHECK(Reached(sync)[9].size() == 3);
  CHECK(async.completed.size() == 1);
  CHECK(async.completed.begin()->first == 1);
  CHECK(sync.completed == async.completed);

  // Any arrival order: ASHA promotes, from its own rung population, every
  // trial SH would keep there, and promotes nobody outside the top
  // floor(n / rf) at the time (the paper's "mispromotions" are the rest).
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    RandomSearcher random(QSpace(), seed);
    AshaScheduler promo(Spec(27, true));
    Simulation sim = Simulate(promo, random, 27, 27, Learning);
    std::map<double, std::vector<std::pair<double, core::TrialId>>> rung;
    std::map<double, std::set<core::TrialId>> promoted;
    for (const auto& [trial, r] : sim.records) {
      if (r.verdict == core::RungVerdict::kPause)
        rung[r.milestone].push_back({-r.value, trial});
      if (r.verdict == core::RungVerdict::kPromote) {
        promoted[r.milestone].insert(trial);
        CHECK(r.rank <= r.n / 3);
      }
    }
    for (auto& [milestone, values] : rung) {
      std::sort(values.begin(), values.end());
      for (size_t i = 0; i < values.size() / 3; ++i)
        CHECK(promoted[milestone].count(values[i].second) == 1);
    }
  }
}

TEST_CASE("the same seed gives a bit-identical decision sequence",
          "[schedulers][determinism]") {
  auto run = [](uint64_t seed) {
    core::SchedulerSpec spec = Spec(27);
    spec.brackets = 3;
    spec.seed = seed;
    core::SearcherSpec searcher_spec{core::SearcherType::kTpe, seed};
    auto searcher = MakeSearcher(searcher_spec, QSpace(), core::Mode::kMax);
    auto scheduler = MakeTrialScheduler(spec);
    Simulation sim = Simulate(*scheduler, *searcher, 80, 27, Learning);
    std::vector<unsigned char> bytes;
    for (const auto& [trial, r] : sim.records) {
      const double fields[] = {static_cast<double>(trial), r.milestone,
                               r.value};
      const int64_t ints[] = {r.bracket, r.rung, r.rank, r.n,
                              static_cast<int64_t>(r.verdict)};
      bytes.insert(bytes.end(), reinterpret_cast<const unsigned char*>(fields),
                   reinterpret_cast<const unsigned char*>(fields + 3));
      bytes.insert(bytes.end(), reinterpret_cast<const unsigned char*>(ints),
                   reinterpret_cast<const unsigned char*>(ints + 5));
    }
    return bytes;
  };
  auto first = run(11);
  CHECK(first.size() > 80 * 8);
  CHECK(first == run(11));
  CHECK(first != run(12));
}

TEST_CASE("a NaN trial stops at its first rung under every scheduler",
          "[schedulers][nan]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (auto type : {core::SchedulerType::kAsha, core::SchedulerType::kHyperband,
                    core::SchedulerType::kMedian}) {
    for (bool promotion : {false, true}) {
      if (promotion && type != core::SchedulerType::kAsha) continue;
      core::SchedulerSpec spec = Spec(27, promotion);
      spec.type = type;
      spec.min_samples = 1;
      auto scheduler = MakeTrialScheduler(spec);
      for (core::TrialId id = 1; id <= 4; ++id) {
        scheduler->OnAdd(id, id - 1);
        core::Decision d = scheduler->OnReport(id, 1, id == 3 ? nan : 0.5);
        if (id != 3) continue;
        INFO("scheduler " << core::ToString(type) << " promotion "
                          << promotion);
        CHECK(d.action == core::Action::kStop);
        REQUIRE(d.rungs.size() == 1);
        CHECK(d.rungs[0].rung == 0);
        CHECK(d.rungs[0].verdict == core::RungVerdict::kStop);
      }
    }
  }
}

TEST_CASE(
    "synchronous hyperband waits for a rung to fill, then keeps the top "
    "floor(n/rf)",
    "[schedulers][hyperband]") {
  core::SchedulerSpec spec = Spec(9);  // levels 1, 3, 9: brackets of 9, 5, 3
  HyperbandScheduler hb(spec);
  for (core::TrialId id = 1; id <= 9; ++id) CHECK(hb.OnAdd(id, id - 1) == 0);
  CHECK(hb.OnAdd(10, 9) == 1);
  for (core::TrialId id = 1; id <= 8; ++id) {
    CHECK(hb.OnReport(id, 1, id * 0.1).action == core::Action::kPause);
    CHECK_FALSE(hb.NextPromotion());
  }
  hb.OnReport(9, 1, 0.05);  // the rung is full: judged now
  std::set<core::TrialId> promoted;
  while (auto p = hb.NextPromotion()) promoted.insert(p->trial);
  CHECK(promoted == std::set<core::TrialId>{6, 7, 8});
  CHECK(hb.TakeStopped().size() == 6);
}

TEST_CASE("the median rule stops what is worse than the median of the others",
          "[schedulers][median]") {
  core::SchedulerSpec spec = Spec(10);
  spec.type = core::SchedulerType::kMedian;
  spec.min_samples = 3;
  spec.mode = core::Mode::kMin;
  MedianScheduler median(spec);
  for (core::TrialId id = 1; id <= 3; ++id)
    CHECK(median.OnReport(id, 2, id).action == core::Action::kContinue);
  // Others at step 2: {1, 2, 3}, median 2. Ties continue; worse stops.
  CHECK(median.OnReport(4, 2, 2.0).action == core::Action::kContinue);
  core::Decision d = median.OnReport(5, 2, 2.6);  // others {1,2,2,3}: 2
  CHECK(d.action == core::Action::kStop);
  CHECK(d.rungs.at(0).milestone == 2);
  CHECK(median.OnReport(1, 10, 0.1).action == core::Action::kComplete);
  // A non-finite time is not judged (casting it to a step is undefined).
  for (double t : {std::numeric_limits<double>::infinity(), std::nan("")}) {
    core::Decision odd = median.OnReport(6, t, 9.0);
    CHECK(odd.action == core::Action::kContinue);
    CHECK(odd.rungs.empty());
  }
}

TEST_CASE("a restored promotion scheduler promotes what the original would",
          "[schedulers][restore]") {
  RandomSearcher random(QSpace(), 5);
  AshaScheduler original(Spec(27, true));
  Simulation sim;
  for (core::TrialId id = 1; id <= 14; ++id) {
    original.OnAdd(id, id - 1);
    double q = Q(*random.Suggest(id - 1));
    for (const auto& r : original.OnReport(id, 1, q).rungs)
      sim.records.push_back({id, r});
  }
  auto first = original.NextPromotion();
  REQUIRE(first);
  sim.records.push_back({first->trial, first->record});
  AshaScheduler restored(Spec(27, true));
  for (core::TrialId id = 1; id <= 14; ++id) restored.OnAdd(id, id - 1);
  for (const auto& [trial, r] : sim.records) restored.Restore(trial, r);
  for (int i = 0; i < 4; ++i) {
    auto a = original.NextPromotion();
    auto b = restored.NextPromotion();
    REQUIRE(a.has_value() == b.has_value());
    if (a) CHECK(a->trial == b->trial);
  }
}

TEST_CASE(
    "a restored synchronous hyperband hands out the verdicts not yet stored",
    "[schedulers][hyperband][restore]") {
  core::SchedulerSpec spec = Spec(9);  // bracket 0: 9 trials, rungs 1 and 3
  HyperbandScheduler original(spec);
  std::vector<std::pair<core::TrialId, core::RungDecision>> stored;
  for (core::TrialId id = 1; id <= 9; ++id) original.OnAdd(id, id - 1);
  for (core::TrialId id = 1; id <= 9; ++id) {
    for (const auto& r : original.OnReport(id, 1, id * 0.1).rungs)
      stored.push_back({id, r});
  }
  // The sweep stores the stops at once and one promotion; then it dies.
  for (const auto& e : original.TakeStopped())
    stored.push_back({e.trial, e.record});
  auto first = original.NextPromotion();
  REQUIRE(first);
  stored.push_back({first->trial, first->record});

  HyperbandScheduler restored(spec);
  for (core::TrialId id = 1; id <= 9; ++id) restored.OnAdd(id, id - 1);
  for (const auto& [trial, r] : stored) restored.Restore(trial, r);
  CHECK(restored.TakeStopped().empty());  // all of them were stored
  std::set<core::TrialId> left, again;
  while (auto p = original.NextPromotion()) left.insert(p->trial);
  while (auto p = restored.NextPromotion()) {
    again.insert(p->trial);
    CHECK(p->record.verdict == core::RungVerdict::kPromote);
  }
  CHECK(left.size() == 2);
  CHECK(again == left);
}

}  // namespace
}  // namespace tuner::schedulers
