// TrialRestorer: a sweep's trials read back from the store, in the phase
// their stored attempt had reached, without a sweep or a runner.
#include "tuner/sweep/trial_restorer.h"

#include <boost/asio/io_context.hpp>
#include <optional>
#include <string>
#include <vector>

#include "schedulers/factory.h"
#include "storage/trial_store.h"
#include "tests/catch.h"
#include "tuner/config/config_loader.h"
#include "tuner/sweep/journal.h"
#include "tuner/sweep/sweep_live_trial.h"

namespace tuner::testing {
namespace {

const char* kConfig = R"(name: restore
command: /bin/true
metric: acc
mode: max
time_attr: epoch
search_space: {lr: {type: uniform, low: 0, high: 1}}
searcher: {type: random, seed: 1}
num_trials: 8
scheduler: {type: asha, max_t: 9, grace_period: 1, reduction_factor: 3}
devices: {kind: cpu, slots: 2}
)";

struct Stored {
  Stored()
      : config(LoadConfigText(kConfig, "r.yaml", "/tmp", "/tmp").value()),
        store(storage::TrialStore::Open(":memory:").value()),
        journal(io, *store, [this](const std::string&) { ++failures; }) {
    storage::ExperimentRecord record;
    record.name = config.name;
    record.status = core::ExperimentStatus::kRunning;
    record.metric = config.metric;
    experiment = store->experiments().Create(record).value();
  }
  // A trial with `attempts` launches and one report per epoch in `epochs`
  // (attempt by attempt as `attempt_of` says).
  core::TrialId Trial(int64_t index, int attempts) {
    core::TrialId id = store->trials().Add(experiment, index, {}).value();
    for (int a = 0; a < attempts; ++a)
      REQUIRE(store->trials().MarkRunning(id).ok());
    return id;
  }
  void Report(core::TrialId id, int64_t seq, double epoch, double acc,
              int attempt) {
    REQUIRE(store->reports()
                .Append({id,
                         seq,
                         epoch,
                         acc,
                         {{"epoch", epoch}, {"acc", acc}},
                         attempt,
                         seq * 10},
                        core::Mode::kMax)
                .ok());
  }
  void Decide(core::TrialId id, double milestone, core::RungVerdict verdict) {
    core::RungDecision d;
    d.milestone = milestone;
    d.value = 0.5;
    d.rank = 2;
    d.n = 3;
    d.verdict = verdict;
    REQUIRE(store->reports().AppendDecision({id, d}).ok());
  }
  // Reads everything back, as Sweep::Resume does.
  std::vector<std::unique_ptr<LiveTrial>> Restore() {
    REQUIRE(store->Commit().ok());
    auto scheduler = schedulers::MakeTrialScheduler(config.scheduler);
    auto searcher =
        schedulers::MakeSearcher(config.searcher, config.space, config.mode);
    TrialRestorer restorer(config, *store, journal);
    auto rows = store->trials().List(experiment).value();
    restorer.RestoreScheduler(experiment, rows, *scheduler, *searcher);
    std::vector<std::unique_ptr<LiveTrial>> trials;
    for (const auto& row : rows) trials.push_back(restorer.Rebuild(row));
    return trials;
  }

  boost::asio::io_context io;
  ExperimentConfig config;
  std::unique_ptr<storage::TrialStore> store;
  int failures = 0;
  Journal journal;
  storage::ExperimentId experiment = 0;
};

TEST_CASE(
    "a running trial comes back in the phase its attempt's verdict "
    "left it",
    "[tuner][sweep][restore]") {
  Stored s;
  core::TrialId undecided = s.Trial(0, 1);
  s.Report(undecided, 1, 1, 0.4, 1);
  core::TrialId stopped = s.Trial(1, 1);
  s.Report(stopped, 1, 1, 0.2, 1);
  s.Decide(stopped, 1, core::RungVerdict::kStop);
  core::TrialId done = s.Trial(2, 1);
  s.Report(done, 1, 9, 0.9, 1);  // max_t: no rung record says so
  auto trials = s.Restore();
  REQUIRE(trials.size() == 3);
  CHECK(trials[0]->life.phase() == TrialPhase::kRunning);
  CHECK(trials[0]->last_value == 0.4);
  CHECK(trials[0]->judged == 1);
  CHECK(trials[0]->seq == 1);
  CHECK(trials[1]->life.phase() == TrialPhase::kStopping);
  CHECK(trials[1]->reason == "rung 1: rank 2 of 3");
  CHECK(trials[1]->stop_time == 1.0);
  CHECK(trials[2]->life.phase() == TrialPhase::kCompleting);
  CHECK(s.failures == 0);
}

TEST_CASE(
    "a paused trial is parked, or queued once promoted, promoted "
    "while pausing, it resumes after its exit",
    "[tuner][sweep][restore]") {
  Stored s;
  core::TrialId parked = s.Trial(0, 1);
  s.Report(parked, 1, 1, 0.5, 1);
  s.Decide(parked, 1, core::RungVerdict::kPause);
  REQUIRE(s.store->trials()
              .Finish(parked, {core::TrialStatus::kPaused, 0,
                               "paused at rung 1: rank 2 of 3", 1.0})
              .ok());
  core::TrialId promoted = s.Trial(1, 1);
  s.Report(promoted, 1, 1, 0.6, 1);
  s.Decide(promoted, 1, core::RungVerdict::kPause);
  REQUIRE(
      s.store->trials().Finish(promoted, {core::TrialStatus::kPaused}).ok());
  s.Decide(promoted, 1, core::RungVerdict::kPromote);
  core::TrialId pausing = s.Trial(2, 1);  // its pausing attempt still runs
  s.Report(pausing, 1, 1, 0.7, 1);
  s.Decide(pausing, 1, core::RungVerdict::kPause);
  s.Decide(pausing, 1, core::RungVerdict::kPromote);
  auto trials = s.Restore();
  CHECK(trials[0]->life.phase() == TrialPhase::kPaused);
  CHECK(trials[0]->reason == "paused at rung 1: rank 2 of 3");
  CHECK(trials[1]->life.phase() == TrialPhase::kQueued);
  CHECK(trials[2]->life.phase() == TrialPhase::kResuming);
}

TEST_CASE(
    "a relaunched trial's next attempt repeats what the earlier ones "
    "stored, unseen",
    "[tuner][sweep][restore]") {
  Stored s;
  core::TrialId id = s.Trial(0, 2);  // attempt 2 runs
  s.Report(id, 1, 1, 0.3, 1);
  s.Report(id, 2, 2, 0.4, 1);
  REQUIRE(s.store->trials().SetRetries(id, {1, 2}).ok());
  auto trials = s.Restore();
  LiveTrial& trial = *trials[0];
  CHECK(trial.attempt == 2);
  CHECK(trial.failures == 1);
  CHECK(trial.device_retries == 2);
  CHECK(trial.intake.replay_until() == 2.0);
  auto same = [](double t) { return t; };
  CHECK_FALSE(trial.intake.Take({{"epoch", 2}, {"acc", 0.4}}, 1, 2, same));
  CHECK(trial.intake.Take({{"epoch", 3}, {"acc", 0.5}}, 2, 2, same));
  CHECK(trial.intake.seen_keys().Text() == "acc, epoch");
}

}  // namespace
}  // namespace tuner::testing
