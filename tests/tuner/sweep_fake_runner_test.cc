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
#include "trial_runner/device_pool.h"
#include "tuner/base/clock.h"
#include "tuner/config/config_loader.h"
#include "tuner/sweep/sweep.h"

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
  World()
      : dir(fs::temp_directory_path() /
            ("tuner-fake-runner-" + std::to_string(getpid()))),
        pool(ThreeSlots()) {
    fs::remove_all(dir);
    fs::create_directories(dir);
    auto loaded = LoadConfigText(kConfig, "fake.yaml", dir, dir);
    REQUIRE(loaded.ok());
    config = loaded.value();
    store = storage::TrialStore::Open(":memory:").value();
    Sweep::Options options;
    options.trials_root = dir / "trials";
    options.config_json = "{}";
    options.pool = &pool;
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
    auto trials = store->ListTrials(sweep->experiment_id());
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
  CHECK(w.store->FindExperiment("fake").value()->status == "finished");
  auto best = w.store->BestTrials(*w.store->FindExperiment("fake").value(), 1);
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

}  // namespace
}  // namespace tuner::testing
