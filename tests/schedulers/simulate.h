// A one-worker sweep without processes: trials report a curve at t = 1, 2,
// ... until the scheduler stops, pauses or completes them; paused trials
// resume where they paused when promoted. Pure logic, for scheduler tests.
#ifndef TUNER_TESTS_SCHEDULERS_SIMULATE_H_
#define TUNER_TESTS_SCHEDULERS_SIMULATE_H_

#include <functional>
#include <map>
#include <utility>
#include <vector>

#include "schedulers/searcher.h"
#include "schedulers/trial_scheduler.h"

namespace tuner::schedulers {

using Curve = std::function<double(const core::Params&, double t)>;

struct Simulation {
  // Every rung record, in the order the scheduler returned them.
  std::vector<std::pair<core::TrialId, core::RungDecision>> records;
  std::map<core::TrialId, core::Params> params;
  std::map<core::TrialId, double> completed;  // value at max_t
  int64_t reports = 0;
};

inline Simulation Simulate(TrialScheduler& scheduler, Searcher& searcher,
                           int64_t trials, double max_t, const Curve& curve) {
  Simulation sim;
  std::map<core::TrialId, double> paused_at;
  int64_t next = 0;
  bool spent = false;
  auto take_stopped = [&] {
    for (auto& e : scheduler.TakeStopped())
      sim.records.push_back({e.trial, e.record});
  };
  for (;;) {
    core::TrialId id;
    double t = 1;
    if (auto promo = scheduler.NextPromotion()) {
      sim.records.push_back({promo->trial, promo->record});
      id = promo->trial;
      t = paused_at[id] + 1;
    } else if (next < trials) {
      id = next + 1;
      sim.params[id] = *searcher.Suggest(next);
      scheduler.OnAdd(id, next);
      ++next;
    } else if (!spent) {
      spent = true;
      scheduler.OnBudgetSpent();
      take_stopped();
      continue;
    } else {
      return sim;
    }
    for (;; t += 1) {
      double value = curve(sim.params[id], t);
      ++sim.reports;
      core::Decision d = scheduler.OnReport(id, t, value);
      for (const auto& r : d.rungs) {
        sim.records.push_back({id, r});
        searcher.Observe(id - 1, sim.params[id], r.milestone, r.value);
      }
      take_stopped();
      if (d.action == core::Action::kContinue && t < max_t + 1) continue;
      if (d.action == core::Action::kPause) paused_at[id] = t;
      if (d.action == core::Action::kComplete) {
        sim.completed[id] = value;
        searcher.Observe(id - 1, sim.params[id], t, value);
      }
      if (d.action == core::Action::kContinue) scheduler.OnEnd(id);
      take_stopped();
      break;
    }
  }
}

}  // namespace tuner::schedulers

#endif  // TUNER_TESTS_SCHEDULERS_SIMULATE_H_
