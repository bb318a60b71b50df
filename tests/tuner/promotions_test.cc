// Promotions on its own: paused trials stored and held, promoted or ended
// as the scheduler says, on an in-memory store; the sweep is a fake
// behind the hooks. No process, no runner.
#include "tuner/sweep/promotions.h"

#include <boost/asio/io_context.hpp>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "storage/trial_store.h"
#include "tests/catch.h"
#include "tuner/sweep/sweep_live_trial.h"

namespace tuner::testing {
namespace {

using core::RungVerdict;
using core::TrialStatus;

// Promotes and stops what a test queues; counts OnBudgetSpent().
class QueuedScheduler : public schedulers::TrialScheduler {
 public:
  int OnAdd(core::TrialId, int64_t) override { return 0; }
  core::Decision OnReport(core::TrialId, double, double) override { return {}; }
  void OnBudgetSpent() override { ++budget_spent; }
  std::optional<schedulers::RungEvent> NextPromotion() override {
    if (promote.empty()) return std::nullopt;
    schedulers::RungEvent next = promote.front();
    promote.erase(promote.begin());
    return next;
  }
  std::vector<schedulers::RungEvent> TakeStopped() override {
    return std::exchange(stop, {});
  }
  void Restore(core::TrialId, const core::RungDecision&) override {}
  std::vector<double> Milestones() const override { return {1, 3}; }

  std::vector<schedulers::RungEvent> promote, stop;
  int budget_spent = 0;
};

schedulers::RungEvent At(core::TrialId trial, RungVerdict verdict) {
  core::RungDecision d;
  d.milestone = 1;
  d.value = 0.5;
  d.rank = 2;
  d.n = 3;
  d.verdict = verdict;
  return {trial, d};
}

// A sweep's side: its live trials, and what the promotions asked of it.
struct FakeSweep {
  FakeSweep()
      : store(storage::TrialStore::Open(":memory:").value()),
        journal(io, *store, [this](const std::string&) { ++failures; }),
        promotions(scheduler, journal, counts, Hooks()) {
    storage::ExperimentRecord record;
    record.name = "promotions";
    record.status = core::ExperimentStatus::kRunning;
    experiment = store->experiments().Create(record).value();
  }
  Promotions::Sweep Hooks() {
    return {.live = [this](core::TrialId id) -> LiveTrial* {
              auto it = live.find(id);
              return it == live.end() ? nullptr : it->second.get();
            },
            .relaunch =
                [this](std::unique_ptr<LiveTrial> trial) {
                  relaunched.push_back(trial->id);
                  live.emplace(trial->id, std::move(trial));
                },
            .finish =
                [this](LiveTrial& trial, const std::string& reason) {
                  finished[trial.id] = reason;
                  live.erase(trial.id);
                },
            .stop = [this](core::TrialId id) { stopped.push_back(id); },
            .paused =
                [this](const LiveTrial& trial) {
                  paused.emplace_back(trial.id, counts.paused);
                }};
  }
  // A stored trial whose attempt runs, in `phase` (queued, running or
  // pausing at rung 1).
  std::unique_ptr<LiveTrial> Trial(TrialPhase phase) {
    core::TrialId id =
        store->trials().Add(experiment, next_index++, {}).value();
    REQUIRE(store->trials().MarkRunning(id).ok());
    auto trial = std::make_unique<LiveTrial>(id, config);
    if (phase == TrialPhase::kQueued) return trial;
    trial->life.Launched(AttemptOrigin::kThisTuner);
    if (phase == TrialPhase::kPausing) {
      trial->life.Decided(core::Action::kPause);
      trial->stop_time = 1;
      trial->reason =
          core::RungReason(At(id, RungVerdict::kPause).record, true);
    }
    return trial;
  }
  // A trial held paused at rung 1.
  core::TrialId Paused() {
    auto trial = Trial(TrialPhase::kPausing);
    core::TrialId id = trial->id;
    promotions.Pause(std::move(trial));
    return id;
  }
  LiveTrial& Live(TrialPhase phase) {
    auto trial = Trial(phase);
    LiveTrial& ref = *trial;
    live.emplace(ref.id, std::move(trial));
    return ref;
  }
  TrialStatus StoredStatus(core::TrialId id) {
    auto rows = store->trials().List(experiment).value();
    for (const auto& row : rows) {
      if (row.id == id) return row.status;
    }
    FAIL("no trial " << id);
    return TrialStatus::kPending;
  }
  size_t StoredDecisions() {
    return store->reports().ListDecisions(experiment).value().size();
  }

  boost::asio::io_context io;
  ExperimentConfig config;
  std::unique_ptr<storage::TrialStore> store;
  int failures = 0;
  Journal journal;
  QueuedScheduler scheduler;
  SweepCounts counts;
  storage::ExperimentId experiment = 0;
  int64_t next_index = 0;
  std::map<core::TrialId, std::unique_ptr<LiveTrial>> live;
  std::vector<core::TrialId> relaunched, stopped;
  std::map<core::TrialId, std::string> finished;
  std::vector<std::pair<core::TrialId, int64_t>> paused;  // id, counted
  Promotions promotions;  // last: its hooks use the rest
};

TEST_CASE(
    "Promotions: a paused trial is stored, counted and told, its promotion "
    "is stored and relaunches it",
    "[promotions]") {
  FakeSweep s;
  core::TrialId id = s.Paused();
  CHECK(s.StoredStatus(id) == TrialStatus::kPaused);
  CHECK(s.counts.paused == 1);
  REQUIRE(s.paused.size() == 1);
  CHECK(s.paused[0] == std::make_pair(id, int64_t{1}));  // counted first
  CHECK_FALSE(s.promotions.PromoteNext());               // none promoted

  s.scheduler.promote.push_back(At(id, RungVerdict::kPromote));
  CHECK(s.promotions.PromoteNext());
  CHECK(s.StoredDecisions() == 1);
  CHECK(s.relaunched == std::vector<core::TrialId>{id});
  CHECK(s.live.at(id)->life.phase() == TrialPhase::kQueued);
  CHECK(s.counts.paused == 0);
  CHECK(s.failures == 0);
}

TEST_CASE(
    "Promotions: a trial promoted while its pause is under way resumes "
    "once it exits, one that ended is only recorded",
    "[promotions]") {
  FakeSweep s;
  LiveTrial& pausing = s.Live(TrialPhase::kPausing);
  core::TrialId ended = s.Trial(TrialPhase::kRunning)->id;  // held by none
  s.scheduler.promote.push_back(At(pausing.id, RungVerdict::kPromote));
  s.scheduler.promote.push_back(At(ended, RungVerdict::kPromote));
  CHECK(s.promotions.PromoteNext());
  CHECK(pausing.life.phase() == TrialPhase::kResuming);
  CHECK(s.promotions.PromoteNext());
  CHECK(s.relaunched.empty());
  CHECK(s.StoredDecisions() == 2);
  CHECK(s.failures == 0);
}

TEST_CASE(
    "Promotions: what the scheduler stops ends if paused or queued, is "
    "stopped if running, and keeps pausing to its exit",
    "[promotions]") {
  FakeSweep s;
  core::TrialId paused = s.Paused();
  LiveTrial& pausing = s.Live(TrialPhase::kPausing);
  LiveTrial& running = s.Live(TrialPhase::kRunning);
  core::TrialId queued = s.Live(TrialPhase::kQueued).id;
  for (core::TrialId id : {paused, pausing.id, running.id, queued}) {
    s.scheduler.stop.push_back(At(id, RungVerdict::kStop));
  }
  s.promotions.EndStopped();
  std::string reason = "rung 1: rank 2 of 3";
  CHECK(s.finished == std::map<core::TrialId, std::string>{{paused, reason},
                                                           {queued, reason}});
  CHECK(s.counts.paused == 0);
  CHECK(pausing.life.phase() == TrialPhase::kStopping);
  CHECK(pausing.reason == reason);
  CHECK(running.life.phase() == TrialPhase::kStopping);
  CHECK(s.stopped == std::vector<core::TrialId>{running.id});
  CHECK(s.StoredDecisions() == 4);
}

TEST_CASE("Promotions: the spent budget is told to the scheduler once",
          "[promotions]") {
  FakeSweep s;
  core::TrialId id = s.Paused();
  s.scheduler.stop.push_back(At(id, RungVerdict::kStop));
  s.promotions.BudgetSpent();
  CHECK(s.scheduler.budget_spent == 1);
  CHECK(s.finished.count(id) == 1);  // what it stopped ended with it
  s.promotions.BudgetSpent();
  CHECK(s.scheduler.budget_spent == 1);
}

TEST_CASE(
    "Promotions: unpromoted paused trials end as stopped, TakeAll hands "
    "them over uncounted",
    "[promotions]") {
  FakeSweep s;
  core::TrialId a = s.Paused();
  core::TrialId b = s.Paused();
  s.promotions.EndUnpromoted();
  CHECK(s.finished == std::map<core::TrialId, std::string>{
                          {a, "paused at rung 1: rank 2 of 3; not promoted"},
                          {b, "paused at rung 1: rank 2 of 3; not promoted"}});
  CHECK(s.counts.paused == 0);

  core::TrialId c = s.Paused();
  auto all = s.promotions.TakeAll();
  REQUIRE(all.size() == 1);
  CHECK(all[0]->id == c);
  CHECK(s.counts.paused == 1);
  s.promotions.EndUnpromoted();  // none held any more
  CHECK(s.finished.count(c) == 0);
}

}  // namespace
}  // namespace tuner::testing
