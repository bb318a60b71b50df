// Runs whole sweeps in-process for tests, with a real SQLite file in a
// temporary directory: RunSweep with real trial processes
// (examples/toy_trainer), RunScripted with scripted trials on a manual
// clock (no process, no wait: deterministic).
#ifndef TUNER_TESTS_TUNER_SWEEP_HARNESS_H_
#define TUNER_TESTS_TUNER_SWEEP_HARNESS_H_

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <string>

#include "storage/trial_store.h"
#include "tests/catch.h"
#include "tests/tuner/scripted_runner.h"
#include "tuner/base/clock.h"
#include "tuner/config/config_loader.h"
#include "tuner/config/device_setup.h"
#include "tuner/sweep/progress.h"
#include "tuner/sweep/sweep.h"
#include "tuner/sweep/sweep_site.h"

namespace tuner::testing {

struct SweepResult {
  SweepOutcome outcome = SweepOutcome::kRunning;
  storage::ExperimentRecord experiment;
  std::vector<storage::TrialRecord> trials;
  std::unique_ptr<storage::TrialStore> store;
  std::filesystem::path dir;
  double seconds = 0;
};

// Runs the loop's ready work, then moves `clock` to its next timer, while
// `running()`. Nothing ready and no timer left while still running fails
// the test: the sweep would wait for ever.
inline void Drive(boost::asio::io_context& io, ManualClock& clock,
                  const std::function<bool()>& running) {
  while (running()) {
    io.restart();
    REQUIRE_NOTHROW(io.poll());
    if (!running()) break;
    Clock::TimePoint due = clock.NextDue();
    INFO("the sweep waits for nothing: it would hang");
    REQUIRE(due != Clock::TimePoint::max());
    REQUIRE_NOTHROW(clock.Advance(due - clock.Now()));
  }
}

// A fresh directory for one sweep, and `yaml` loaded in it; `prepare`, if
// given, changes the new store first.
inline ExperimentConfig NewSweepDir(
    std::string yaml, SweepResult& result,
    const std::function<void(storage::TrialStore&)>& prepare) {
  static int counter = 0;
  result.dir = std::filesystem::temp_directory_path() /
               ("tuner-sweep-" + std::to_string(getpid()) + "-" +
                std::to_string(counter++));
  std::filesystem::remove_all(result.dir);
  std::filesystem::create_directories(result.dir);
  for (size_t at; (at = yaml.find("TOY")) != std::string::npos;) {
    yaml.replace(at, 3, TOY_TRAINER);
  }
  for (size_t at; (at = yaml.find("DEVTRAINER")) != std::string::npos;) {
    yaml.replace(at, 10, DEVICE_TRAINER);
  }
  for (size_t at; (at = yaml.find("FAKEHF")) != std::string::npos;) {
    yaml.replace(at, 6, SOURCE_DIR "/examples/fake_hf_trainer.py");
  }
  auto config = LoadConfigText(yaml, "test.yaml", result.dir, result.dir);
  INFO(config.status().message());
  REQUIRE(config.ok());
  auto store = storage::TrialStore::Open(result.dir / "tuner.db");
  REQUIRE(store.ok());
  result.store = std::move(store).value();
  if (prepare) prepare(*result.store);
  return config.value();
}

// The devices the config names, as a sweep of `tuner run` gets them.
inline runner::DevicePool TestPool(const ExperimentConfig& config) {
  auto pool = SetUpDevices(config.devices, config.workdir);
  INFO(pool.status().message());
  REQUIRE(pool.ok());
  return std::move(pool).value();
}

// What the store holds once the sweep has ended.
inline void ReadBack(const ExperimentConfig& config, SweepResult& result) {
  result.store->LimitPages(1 << 30).ok();  // read what was written
  result.experiment = *result.store->experiments().Find(config.name).value();
  result.trials = result.store->trials().List(result.experiment.id).value();
}

// The options every test sweep starts from, set up where every caller's
// are (SweepSite): its directory, `pool`, 2 CPUs, the shim, the sweep's own
// fresh database.
inline Sweep::Options BaseOptions(const ExperimentConfig& config,
                                  const SweepResult& result,
                                  runner::DevicePool& pool) {
  return SweepSite::Unlocked(config, "{}", (result.dir / "trials").string(),
                             /*original_database=*/true)
      .Options(pool, 2, TUNER_SHIM);
}

// A fresh directory per call; `yaml` may say TOY for the toy trainer's path
// DEVTRAINER for examples/device_trainer's, FAKEHF for
// examples/fake_hf_trainer.py's.
// `prepare` may change the store before the sweep starts; `customize` the
// sweep's options, `on_loop` too, with the sweep's event loop at hand (a
// clock's timers run on it).
inline SweepResult RunSweep(
    std::string yaml,
    const std::function<void(storage::TrialStore&)>& prepare = {},
    const std::function<void(Sweep::Options&)>& customize = {},
    const std::function<void(Sweep::Options&, boost::asio::io_context&)>&
        on_loop = {}) {
  SweepResult result;
  ExperimentConfig config = NewSweepDir(std::move(yaml), result, prepare);
  runner::DevicePool pool = TestPool(config);
  boost::asio::io_context io;
  NullProgress progress;
  Sweep::Options options = BaseOptions(config, result, pool);
  options.on_finished = [&io] { io.stop(); };
  if (customize) customize(options);
  if (on_loop) on_loop(options, io);
  auto start = std::chrono::steady_clock::now();
  {
    Sweep sweep(io, config, *result.store, progress, options);
    REQUIRE(sweep.Start().ok());
    if (sweep.outcome() == SweepOutcome::kRunning) {
      io.run_for(std::chrono::seconds(90));
    }
    result.outcome = sweep.outcome();
  }
  result.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  ReadBack(config, result);
  return result;
}

// The sweep of `yaml` with trials that do what `script` says, on a
// ScriptedRunner and a ManualClock: the loop runs what is ready, then the
// clock jumps to its next timer, until the sweep ends. A sweep that would
// wait forever (nothing ready, no timer) fails the test. `seconds` is the
// simulated time it took; `prepare` and `customize` as for RunSweep.
inline SweepResult RunScripted(
    std::string yaml, ScriptFor script,
    const std::function<void(Sweep::Options&)>& customize = {},
    const std::function<void(storage::TrialStore&)>& prepare = {}) {
  SweepResult result;
  ExperimentConfig config = NewSweepDir(std::move(yaml), result, prepare);
  runner::DevicePool pool = TestPool(config);
  boost::asio::io_context io;
  ManualClock clock;
  NullProgress progress;
  Sweep::Options options = BaseOptions(config, result, pool);
  options.clock = &clock;
  options.make_runner = MakeScriptedRunner(clock, std::move(script));
  if (customize) customize(options);
  {
    Sweep sweep(io, config, *result.store, progress, options);
    REQUIRE(sweep.Start().ok());
    Drive(io, clock,
          [&sweep] { return sweep.outcome() == SweepOutcome::kRunning; });
    result.outcome = sweep.outcome();
  }
  result.seconds =
      std::chrono::duration<double>(clock.Now() - Clock::TimePoint{}).count();
  ReadBack(config, result);
  return result;
}

}  // namespace tuner::testing

#endif  // TUNER_TESTS_TUNER_SWEEP_HARNESS_H_
