// The sweep on the runner seam: no process, no clock. A FakeRunner stands
// in for LocalRunner; the test says what each trial reports and when it
// exits, and checks what the sweep decided, asked the runner and stored.
// Deterministic: the same events give the same result on any machine.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include "storage/trial_store.h"
#include "tests/catch.h"
#include "tests/tuner/fake_runner.h"
#include "tests/tuner/sweep_harness.h"
#include "trial_runner/devices/device_pool.h"
#include "tuner/base/clock.h"
#include "tuner/base/tuner_lock.h"
#include "tuner/config/config_loader.h"
#include "tuner/config/stored_config.h"
#include "tuner/sweep/experiment_lifecycle.h"
#include "tuner/sweep/sweep.h"
#include "tuner/sweep/sweep_site.h"

namespace tuner::testing {
namespace {

namespace fs = std::filesystem;

const char* kConfig = R"(name: fake
command: /bin/false --lr {lr}
metric: score
mode: max
time_attr: epoch
search_space: {lr: {type: uniform, low: 0, high: 1}}
searcher: {type: random, seed: 1}
num_trials: 3
scheduler: {type: asha, max_t: 9, grace_period: 1, reduction_factor: 3}
devices: {kind: cpu, slots: 3}
)";

// Three CPU slots in this process only (no cross-process leases).
runner::DevicePool ThreeSlots() {
  runner::Inventory inventory;
  for (int i = 0; i < 3; ++i) {
    runner::Device d;
    d.id = i;
    d.index = i;
    inventory.devices.push_back(d);
  }
  auto pool = runner::DevicePool::Create(inventory, runner::PoolOptions{});
  REQUIRE(pool.ok());
  return std::move(pool).value();
}

struct World {
  // `on_file`: the database is a file (other connections can open it),
  // else a private in-memory one.
  explicit World(bool on_file = false)
      : dir(fs::temp_directory_path() /
            ("tuner-fake-runner-" + std::to_string(getpid()))),
        pool(ThreeSlots()) {
    fs::remove_all(dir);
    fs::create_directories(dir);
    auto loaded = LoadConfigText(kConfig, "fake.yaml", dir, dir);
    REQUIRE(loaded.ok());
    config = loaded.value();
    store = storage::TrialStore::Open(on_file ? (dir / "tuner.db").string()
                                              : std::string(":memory:"))
                .value();
    options = SweepSite::Unlocked(
                  config,
                  on_file ? StoredConfigJson(config, kConfig, "fake.yaml",
                                             dir.string(),
                                             (dir / "tuner.db").string())
                          : "{}",
                  (dir / "trials").string())
                  .Options(pool, 1, "");
    options.on_finished = [this] { finished = true; };
    options.clock = &clock;  // nothing here waits on the machine's time
    options.make_runner = [this](boost::asio::io_context& loop,
                                 runner::RunnerObserver& observer) {
      auto fake = std::make_unique<FakeRunner>(loop, observer);
      runner = fake.get();
      return fake;
    };
    sweep.emplace(io, config, *store, progress, options);
  }
  // A new tuner on the same database (the old sweep is gone): its runner
  // is a fresh FakeRunner, `ended` its adopted trials that had ended.
  void Resume(const std::map<core::TrialId, runner::TrialExit>& ended) {
    sweep.reset();
    finished = false;
    sweep.emplace(io, config, *store, progress, options);
    runner->ended = ended;
    auto experiment = store->experiments().Find(config.name);
    REQUIRE(experiment.ok());
    REQUIRE(experiment.value());
    REQUIRE(sweep->Resume(*experiment.value()).ok());
  }
  ~World() {
    sweep.reset();
    fs::remove_all(dir);
  }
  // Runs what the sweep posted (commits, exits the fake posted).
  void Settle() {
    io.restart();
    io.poll();
  }
  storage::TrialRecord Row(core::TrialId id) {
    auto trials = store->trials().List(sweep->experiment_id());
    INFO(trials.status().message() << " experiment " << sweep->experiment_id());
    REQUIRE(trials.ok());
    INFO(trials.value().size() << " trials");
    for (const auto& t : trials.value())
      if (t.id == id) return t;
    FAIL("no trial " << id);
    return {};
  }

  fs::path dir;
  ManualClock clock;
  runner::DevicePool pool;
  ExperimentConfig config;
  std::unique_ptr<storage::TrialStore> store;
  Sweep::Options options;
  boost::asio::io_context io;
  NullProgress progress;
  FakeRunner* runner = nullptr;
  bool finished = false;
  std::optional<Sweep> sweep;
};

core::Metrics Epoch(double epoch, double score) {
  return {{"epoch", epoch}, {"score", score}};
}

TEST_CASE("asha on the fake runner: stops, completions and rows, in order",
          "[tuner][sweep][fake]") {
  World w;
  REQUIRE(w.sweep->Start().ok());
  w.Settle();
  REQUIRE(w.runner != nullptr);
  // Three slots: all three trials start at once, each on its own slot.
  REQUIRE(w.runner->started.size() == 3);
  core::TrialId a = w.runner->started[0].trial;
  core::TrialId b = w.runner->started[1].trial;
  core::TrialId c = w.runner->started[2].trial;
  CHECK(w.Row(a).status == core::TrialStatus::kRunning);

  // Rung 1 (grace_period 1, rf 3): a arrives first and alone goes on; b,
  // worse than a, is stopped; c, the best so far, goes on.
  w.runner->Report(a, Epoch(1, 0.5));
  w.runner->Report(b, Epoch(1, 0.1));
  w.runner->Report(c, Epoch(1, 0.9));
  w.Settle();
  CHECK(w.runner->stopped == std::vector<core::TrialId>{b});
  CHECK(w.Row(b).status == core::TrialStatus::kStopped);
  CHECK_FALSE(w.runner->IsRunning(b));

  // Rung 3: c arrives first and goes on; a, worse, is stopped.
  w.runner->Report(c, Epoch(3, 0.95));
  w.runner->Report(a, Epoch(3, 0.6));
  w.Settle();
  CHECK(w.runner->stopped == std::vector<core::TrialId>{b, a});
  CHECK(w.Row(a).status == core::TrialStatus::kStopped);

  // c reaches max_t and exits 0: completed, and the sweep ends.
  w.runner->Report(c, Epoch(9, 0.97));
  w.runner->Exit(c, 0);
  w.Settle();
  CHECK(w.Row(c).status == core::TrialStatus::kCompleted);
  CHECK(w.Row(c).last_value == 0.97);
  CHECK(w.finished);
  CHECK(w.sweep->outcome() == SweepOutcome::kFinished);
  CHECK(w.store->experiments().Find("fake").value()->status ==
        core::ExperimentStatus::kFinished);
  auto best =
      w.store->trials().Best(*w.store->experiments().Find("fake").value(), 1);
  REQUIRE(best.ok());
  REQUIRE(best.value().size() == 1);
  CHECK(best.value()[0].id == c);
  // Each launch ran the config's command with its own sampled lr.
  for (const auto& launch : w.runner->started) {
    REQUIRE(launch.spawn.argv.size() == 3);
    CHECK(launch.spawn.argv[0] == "/bin/false");
    CHECK(launch.spawn.argv[1] == "--lr");
    auto params = w.Row(launch.trial).params;
    REQUIRE(params.size() == 1);
    CHECK(launch.spawn.argv[2] == core::FormatParamValue(params[0].second));
  }
}

TEST_CASE("reports a trial printed before its launch returned count for it",
          "[tuner][sweep][fake]") {
  World w;  // its sweep built the runner; Start() launches the first trials
  w.runner->printed_at_start = {Epoch(1, 0.5), Epoch(2, 0.6)};
  REQUIRE(w.sweep->Start().ok());
  w.Settle();
  REQUIRE(w.runner->started.size() == 3);
  core::TrialId a = w.runner->started[0].trial;
  auto reports = w.store->reports().List(a);
  REQUIRE(reports.ok());
  REQUIRE(reports.value().size() == 2);
  for (const auto& report : reports.value()) CHECK(report.attempt == 1);
  CHECK(w.Row(a).last_value == 0.6);
  CHECK(w.Row(a).status == core::TrialStatus::kRunning);
}

TEST_CASE("a trial that exits 0 without reporting fails with the reason",
          "[tuner][sweep][fake]") {
  World w;
  REQUIRE(w.sweep->Start().ok());
  w.Settle();
  REQUIRE(w.runner->started.size() == 3);
  for (const auto& launch : w.runner->started) {
    w.runner->Report(launch.trial, {{"loss", 1.0}});
    w.runner->Exit(launch.trial, 0);
  }
  w.Settle();
  CHECK(w.finished);
  for (const auto& launch : w.runner->started) {
    auto row = w.Row(launch.trial);
    CHECK(row.status == core::TrialStatus::kFailed);
    CHECK(row.reason ==
          "exited 0 without reporting 'score' with 'epoch'; its reports had: "
          "loss");
  }
}

TEST_CASE("a trial that never reports the metric is told every key it had",
          "[tuner][sweep][fake]") {
  World w;
  REQUIRE(w.sweep->Start().ok());
  w.Settle();
  REQUIRE(w.runner->started.size() == 3);
  core::TrialId a = w.runner->started[0].trial;
  core::TrialId b = w.runner->started[1].trial;
  // The Trainer's training logs first, its evaluation (with the metric
  // misspelt) later.
  w.runner->Report(a, {{"loss", 1.0}, {"learning_rate", 0.1}, {"epoch", 1}});
  w.runner->Report(a, {{"eval_scroe", 0.5}, {"eval_loss", 0.9}, {"epoch", 1}});
  w.runner->Exit(a, 0);
  // Past the bound: the first names in sorted order, and a note.
  core::Metrics many;
  for (int i = 0; i < 50; ++i)
    many.push_back({"k" + std::to_string(100 + i), i});
  w.runner->Report(b, many);
  w.runner->Exit(b, 0);
  w.Settle();
  CHECK(w.Row(a).reason ==
        "exited 0 without reporting 'score' with 'epoch'; its reports had: "
        "epoch, eval_loss, eval_scroe, learning_rate, loss");
  std::string listed;
  for (int i = 0; i < 40; ++i)
    listed += (i ? ", k" : "k") + std::to_string(100 + i);
  CHECK(w.Row(b).reason ==
        "exited 0 without reporting 'score' with 'epoch'; its reports had: " +
            listed + ", ... (more than 40)");
}

TEST_CASE("trials a storage failure stopped are relaunched by resume",
          "[tuner][sweep][fake]") {
  World w(true);
  REQUIRE(w.sweep->Start().ok());
  w.Settle();
  REQUIRE(w.runner->started.size() == 3);
  std::vector<core::TrialId> ids;
  for (const auto& launch : w.runner->started) ids.push_back(launch.trial);
  // Another connection holds the write lock and the sweep may not wait:
  // its next write fails, as on a full disk or an immutable -shm file.
  auto blocker = storage::TrialStore::Open((w.dir / "tuner.db").string());
  REQUIRE(blocker.ok());
  REQUIRE(
      blocker.value()
          ->experiments()
          .SetStatus(w.sweep->experiment_id(), core::ExperimentStatus::kRunning)
          .ok());
  w.store->SetBusyPolicy(
      {std::chrono::milliseconds(0), std::chrono::milliseconds(0)});
  w.runner->Report(ids[0], Epoch(1, 0.5));
  w.Settle();
  CHECK(w.sweep->outcome() == SweepOutcome::kFailed);
  CHECK(w.runner->stopped.size() == 3);
  blocker.value().reset();
  w.store->SetBusyPolicy({});
  // The tuner stopped its trials but could not record it.
  for (core::TrialId id : ids)
    CHECK(w.Row(id).status == core::TrialStatus::kRunning);

  // Their shims ended before the resume: two status files say that the
  // stop was asked for, one is empty (the disk was full).
  std::map<core::TrialId, runner::TrialExit> ended;
  for (core::TrialId id : ids) {
    ended[id].signal = 15;
    ended[id].stop_requested = true;
  }
  ended[ids[2]] = runner::TrialExit{};
  ended[ids[2]].cause = runner::EndCause::kLost;
  ended[ids[2]].lost_why = "empty or unreadable status.attempt-1.json";
  w.Resume(ended);
  w.Settle();
  // Each runs again as a second attempt; no failure is counted.
  REQUIRE(w.runner->started.size() == 3);
  for (core::TrialId id : ids) {
    INFO("trial " << id);
    auto row = w.Row(id);
    CHECK(row.status == core::TrialStatus::kRunning);
    CHECK(row.attempts == 2);
    CHECK(w.store->trials().Retries(id).value().failures == 0);
  }
  for (core::TrialId id : ids) {
    w.runner->Report(id, Epoch(9, 0.5));
    w.runner->Exit(id, 0);
  }
  w.Settle();
  CHECK(w.finished);
  for (core::TrialId id : ids)
    CHECK(w.Row(id).status == core::TrialStatus::kCompleted);
}

TEST_CASE("extend says a sweep launches its trials only if it has not ended",
          "[tuner][sweep][fake]") {
  World w(true);
  std::string db = (w.dir / "tuner.db").string();
  // The tuner's lock, held as `tuner run` holds it until its process exits
  // (after the sweep has ended and its summary is printed).
  auto lock = HoldTunerLock(
      TunerLockPath(ExperimentTrialsRoot(w.options.config_json, db, "fake"),
                    "fake"),
      CliOwnerText());
  REQUIRE(lock);
  REQUIRE(w.sweep->Start().ok());
  w.Settle();
  REQUIRE(w.runner->started.size() == 3);
  auto other = storage::TrialStore::Open(db);
  REQUIRE(other.ok());
  auto extended = ExtendExperiment(*other.value(), db, "fake", 1);
  REQUIRE(extended.ok());
  CHECK(extended.value().running);
  CHECK(extended.value().status == core::ExperimentStatus::kRunning);
  auto finish = [&w](size_t from) {
    for (size_t i = from; i < w.runner->started.size(); ++i) {
      core::TrialId id = w.runner->started[i].trial;
      w.runner->Report(id, Epoch(9, 0.5));
      w.runner->Exit(id, 0);
    }
    w.Settle();
  };
  finish(0);
  REQUIRE(w.runner->started.size() == 4);  // the extension, launched
  finish(3);
  REQUIRE(w.finished);
  CHECK(w.store->experiments().Find("fake").value()->status ==
        core::ExperimentStatus::kFinished);

  // The sweep has ended; its tuner still holds the lock.
  auto late = ExtendExperiment(*other.value(), db, "fake", 1);
  REQUIRE(late.ok());
  CHECK(late.value().status == core::ExperimentStatus::kFinished);
  CHECK_FALSE(late.value().running);
  w.Settle();
  CHECK(w.runner->started.size() == 4);
}

}  // namespace
}  // namespace tuner::testing
