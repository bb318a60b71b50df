// A sweep shares its database with other writers (other tuners, the
// service): it never keeps the write lock while it waits. Scripted trials
// on a manual clock; the device is held through the real lock files.
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>

#include "tests/catch.h"
#include "tests/tuner/sweep_harness.h"
#include "tuner/sweep/sweep_site.h"

namespace tuner::testing {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

storage::ExperimentRecord OtherExperiment() {
  storage::ExperimentRecord e;
  e.name = "another-tuners";
  e.status = core::ExperimentStatus::kRunning;
  e.metric = "score";
  e.time_attr = "epoch";
  e.config_json = "{}";
  return e;
}

TEST_CASE("a sweep waiting for a device held elsewhere keeps no write lock",
          "[sweep][storage]") {
  fs::path dir = fs::temp_directory_path() /
                 ("tuner-shared-db-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string yaml = R"(name: waits
command: /bin/true --lr {lr}
metric: score
mode: max
time_attr: epoch
search_space: {lr: {type: loguniform, low: 1.0e-3, high: 1.0}}
num_trials: 2
devices: {kind: cpu, slots: 1}
)";
  auto config = LoadConfigText(yaml, "test.yaml", dir, dir);
  INFO(config.status().message());
  REQUIRE(config.ok());
  std::string db = (dir / "tuner.db").string();
  auto store = storage::TrialStore::Open(db).value();
  auto pool = SetUpDevices(config.value().devices, config.value().workdir);
  REQUIRE(pool.ok());
  // Another process's pool on the same lock files holds the only group.
  auto elsewhere = SetUpDevices(config.value().devices, config.value().workdir);
  REQUIRE(elsewhere.ok());
  auto held = elsewhere.value().TryAcquire();
  REQUIRE(held.has_value());

  boost::asio::io_context io;
  ManualClock clock;
  NullProgress progress;
  Sweep::Options options =
      SweepSite::Unlocked(config.value(), "{}", (dir / "trials").string())
          .Options(pool.value(), 2, "");
  options.clock = &clock;
  options.make_runner =
      MakeScriptedRunner(clock, [](const runner::TrialLaunch&, int) {
        TrialScript script;
        script.reports = {{{"epoch", 1}, {"score", 0.5}},
                          {{"epoch", 2}, {"score", 0.6}}};
        return script;
      });
  Sweep sweep(io, config.value(), *store, progress, options);
  REQUIRE(sweep.Start().ok());
  io.poll();  // what Start() posted; the sweep now waits for the device
  REQUIRE(sweep.outcome() == SweepOutcome::kRunning);
  CHECK_FALSE(store->InTransaction());

  // Another writer of the file gets in at once: it does not even wait.
  auto other = storage::TrialStore::Open(db).value();
  other->SetBusyPolicy(storage::BusyPolicy{milliseconds(0), milliseconds(0)});
  auto created = other->experiments().Create(OtherExperiment());
  INFO((created.ok() ? "" : created.message()));
  CHECK(created.ok());
  CHECK(other->Commit().ok());

  // Once the device is free the sweep goes on to its end (its retry timer
  // finds the device free).
  elsewhere.value().Release(std::move(*held));
  Drive(io, clock,
        [&sweep] { return sweep.outcome() == SweepOutcome::kRunning; });
  REQUIRE(sweep.outcome() == SweepOutcome::kFinished);
  auto trials = store->trials().List(sweep.experiment_id()).value();
  REQUIRE(trials.size() == 2);
  for (const auto& trial : trials)
    CHECK(trial.status == core::TrialStatus::kCompleted);
  auto leases = store->leases().List(sweep.experiment_id()).value();
  for (const auto& lease : leases) CHECK(lease.released_at.has_value());
}

}  // namespace
}  // namespace tuner::testing
