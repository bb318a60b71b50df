// An exception inside one experiment fails that experiment, with its reason
// stored; another experiment on the same event loop and database goes on.
// Scripted trials on a manual clock: no process, no wait.
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <stdexcept>

#include "schedulers/factory.h"
#include "tests/tuner/sweep_harness.h"
#include "tuner/sweep/sweep_site.h"

namespace tuner {
namespace {

// A scheduler that throws on the first report: a bug anywhere in a
// component the sweep calls from the event loop.
class ThrowingScheduler : public schedulers::TrialScheduler {
 public:
  explicit ThrowingScheduler(const core::SchedulerSpec& spec)
      : inner_(schedulers::MakeTrialScheduler(spec)) {}
  int OnAdd(core::TrialId trial, int64_t index) override {
    return inner_->OnAdd(trial, index);
  }
  core::Decision OnReport(core::TrialId, double, double) override {
    throw std::runtime_error("boom from the scheduler");
  }
  void OnEnd(core::TrialId trial) override { inner_->OnEnd(trial); }
  void Restore(core::TrialId trial, const core::RungDecision& record) override {
    inner_->Restore(trial, record);
  }
  std::vector<double> Milestones() const override {
    return inner_->Milestones();
  }

 private:
  std::unique_ptr<schedulers::TrialScheduler> inner_;
};

std::string Config(const std::string& name) {
  std::string yaml = R"(name: NAME
command: /bin/true --quality {q}
metric: score
mode: max
time_attr: epoch
search_space: {q: {type: uniform, low: 0, high: 1}}
num_trials: 3
devices: {kind: cpu, slots: 1}
)";
  yaml.replace(yaml.find("NAME"), 4, name);
  return yaml;
}

// Three epochs of the toy trainer's curve, a second apart.
testing::TrialScript ThreeEpochs(const runner::TrialLaunch& launch, int) {
  double q = std::stod(testing::FlagValue(launch, "--quality"));
  return testing::ToyTrainerScript(q, 3);
}

TEST_CASE("an exception in one sweep fails it, the other sweep finishes",
          "[tuner][sweep]") {
  auto dir = std::filesystem::temp_directory_path() /
             ("tuner-exception-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  auto store = storage::TrialStore::Open(dir / "tuner.db");
  REQUIRE(store.ok());
  auto bad = LoadConfigText(Config("bad"), "bad.yaml", dir, dir);
  auto good = LoadConfigText(Config("good"), "good.yaml", dir, dir);
  REQUIRE(bad.ok());
  REQUIRE(good.ok());
  auto bad_pool = SetUpDevices(bad.value().devices, bad.value().workdir);
  auto good_pool = SetUpDevices(good.value().devices, good.value().workdir);
  REQUIRE(bad_pool.ok());
  REQUIRE(good_pool.ok());

  boost::asio::io_context io;
  ManualClock clock;
  NullProgress progress;
  auto options = [&](const ExperimentConfig& config, runner::DevicePool& pool,
                     const std::string& name) {
    Sweep::Options o = SweepSite::Unlocked(config, "{}", (dir / name).string())
                           .Options(pool, 1, "");
    o.clock = &clock;
    o.make_runner = testing::MakeScriptedRunner(clock, ThreeEpochs);
    return o;
  };
  Sweep::Options bad_options = options(bad.value(), bad_pool.value(), "bad");
  bad_options.make_scheduler = [](const core::SchedulerSpec& spec) {
    return std::make_unique<ThrowingScheduler>(spec);
  };
  Sweep bad_sweep(io, bad.value(), *store.value(), progress, bad_options);
  Sweep good_sweep(io, good.value(), *store.value(), progress,
                   options(good.value(), good_pool.value(), "good"));
  REQUIRE(bad_sweep.Start().ok());
  REQUIRE(good_sweep.Start().ok());
  // The exception ends the bad sweep only: it never leaves io.run().
  auto running = [&] {
    return bad_sweep.outcome() == SweepOutcome::kRunning ||
           good_sweep.outcome() == SweepOutcome::kRunning;
  };
  testing::Drive(io, clock, running);

  CHECK(bad_sweep.outcome() == SweepOutcome::kFailed);
  CHECK(bad_sweep.error() ==
        "internal error in a report: boom from the scheduler");
  CHECK(good_sweep.outcome() == SweepOutcome::kFinished);
  auto bad_row = store.value()->experiments().Find("bad").value();
  REQUIRE(bad_row);
  CHECK(bad_row->status == core::ExperimentStatus::kFailed);
  CHECK(bad_row->reason == bad_sweep.error());
  auto bad_trials = store.value()->trials().List(bad_row->id).value();
  for (const auto& t : bad_trials) {
    CHECK(t.status != core::TrialStatus::kRunning);
  }
  auto good_row = store.value()->experiments().Find("good").value();
  REQUIRE(good_row);
  CHECK(good_row->status == core::ExperimentStatus::kFinished);
  CHECK(good_row->reason.empty());
  auto trials = store.value()->trials().List(good_row->id).value();
  REQUIRE(trials.size() == 3);
  for (const auto& t : trials) CHECK(t.status == core::TrialStatus::kCompleted);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tuner
