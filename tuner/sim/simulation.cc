#include "tuner/sim/simulation.h"

#include <spdlog/spdlog.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <boost/asio/signal_set.hpp>
#include <chrono>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <unordered_map>

#include "core/param_value.h"
#include "schedulers/factory.h"
#include "trial_runner/devices/device_pool.h"
#include "tuner/base/clock.h"
#include "tuner/sim/row_picker.h"
#include "tuner/sim/sim_runner.h"
#include "tuner/sweep/sweep_site.h"

namespace tuner::sim {

namespace {

namespace fs = std::filesystem;

// Batches the store commits at once (see TrialStore::HoldCommits).
constexpr int kBatchesPerCommit = 64;

double SecondsSince(Clock::TimePoint start, Clock::TimePoint now) {
  return std::chrono::duration<double>(now - start).count();
}

// Sits between the runner and the sweep: notes when a trial reaches max_t
// with a better value than any before (the trajectory), then passes on.
class Recorder : public runner::RunnerObserver {
 public:
  Recorder(const ExperimentConfig& config, double max_t, const Clock& clock,
           SimulationResult& result)
      : config_(config), max_t_(max_t), clock_(clock), result_(result) {}
  void set_sweep(runner::RunnerObserver* sweep) { sweep_ = sweep; }

  void OnMetrics(core::TrialId trial, core::Metrics metrics,
                 int64_t offset) override {
    Note(trial, metrics);
    sweep_->OnMetrics(trial, std::move(metrics), offset);
  }
  void OnExit(core::TrialId trial, const runner::TrialExit& exit) override {
    sweep_->OnExit(trial, exit);
  }

 private:
  void Note(core::TrialId trial, const core::Metrics& metrics) {
    auto time = core::FindMetric(metrics, config_.time_attr);
    auto value = core::FindMetric(metrics, config_.metric);
    if (!time || !value || !(*time >= max_t_) || !std::isfinite(*value)) {
      return;
    }
    bool better =
        !result_.best || core::Better(*value, *result_.best, config_.mode);
    if (!better) return;
    result_.best = *value;
    result_.best_trial = trial;
    result_.trajectory.emplace_back(
        SecondsSince(Clock::TimePoint{}, clock_.Now()), *value);
  }

  const ExperimentConfig& config_;
  double max_t_;
  const Clock& clock_;
  SimulationResult& result_;
  runner::RunnerObserver* sweep_ = nullptr;
};

double MaxT(const ExperimentConfig& config, const CurveTable& table) {
  if (config.scheduler.max_t) return *config.scheduler.max_t;
  double max_t = 0;
  for (const auto& row : table.rows) {
    auto t = core::FindMetric(row.steps.back().metrics, config.time_attr);
    if (t) max_t = std::max(max_t, *t);
  }
  return max_t;
}

core::Result<runner::DevicePool> Slots(int workers) {
  runner::Inventory inventory;
  for (int i = 0; i < workers; ++i) {
    runner::Device device;
    device.id = i;
    device.index = i;
    inventory.devices.push_back(device);
  }
  return runner::DevicePool::Create(inventory, runner::PoolOptions{});
}

// Whether some step of the table reports `metric` (a number or null).
bool HasMetric(const CurveTable& table, const std::string& metric) {
  for (const auto& row : table.rows) {
    for (const auto& step : row.steps)
      if (core::FindMetric(step.metrics, metric)) return true;
  }
  return false;
}

// Where the scratch directory goes: $TMPDIR if set, else /dev/shm (the
// sweep writes each trial's params.json: a tmpfs makes that free), else
// the system's temporary directory.
fs::path ScratchParent() {
  const char* tmpdir = getenv("TMPDIR");
  if (tmpdir && *tmpdir) return tmpdir;
  if (access("/dev/shm", W_OK | X_OK) == 0) return "/dev/shm";
  return fs::temp_directory_path();
}

// A directory of its own under ScratchParent(); removed with it.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = (ScratchParent() / "tuner-sim-XXXXXX").string();
    if (mkdtemp(pattern.data())) path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Ends a sweep that cannot go on: its trials are killed.
void EndNow(boost::asio::io_context& io, Sweep& sweep) {
  sweep.Interrupt(true);
  io.restart();
  io.poll();
  if (sweep.outcome() == SweepOutcome::kRunning) sweep.Detach();
}

// Runs the loop and the clock until the sweep ends: the loop's ready work
// first, then the clock to its next timer. With nothing left to happen and
// the sweep still running (it would wait forever), it is ended. Returns
// false, the sweep ended, when the next timer would pass
// kMaxSimulatedSeconds; ends it too before a timer past `until_s`.
bool Drive(boost::asio::io_context& io, ManualClock& clock, Sweep& sweep,
           std::optional<double> until_s) {
  const auto limit = std::chrono::duration_cast<Clock::Duration>(
      std::chrono::duration<double>(kMaxSimulatedSeconds));
  const auto until = std::chrono::duration_cast<Clock::Duration>(
      std::chrono::duration<double>(until_s.value_or(kMaxSimulatedSeconds)));
  while (sweep.outcome() == SweepOutcome::kRunning) {
    io.restart();
    io.poll();
    if (sweep.outcome() != SweepOutcome::kRunning) break;
    Clock::TimePoint due = clock.NextDue();
    if (due == Clock::TimePoint::max()) {
      EndNow(io, sweep);
      break;
    }
    if (due - Clock::TimePoint{} > limit) {
      EndNow(io, sweep);
      return false;
    }
    if (due - Clock::TimePoint{} > until) {
      EndNow(io, sweep);
      break;
    }
    clock.Advance(due - clock.Now());
  }
  return true;
}

}  // namespace

core::Result<SimulationResult> Simulate(const ExperimentConfig& config,
                                        const std::string& config_json,
                                        const CurveTable& table,
                                        storage::TrialStore& store,
                                        const SimulationOptions& options) {
  auto picker = RowPicker::Make(table, config.space, config.num_trials,
                                config.searcher.seed);
  if (!picker.ok()) return picker.error();
  if (!HasMetric(table, config.metric)) {
    return core::InvalidArgument(table.source + ": no step has the metric '" +
                                 config.metric + "' (the experiment's metric)");
  }
  auto pool = Slots(std::max(1, options.workers));
  if (!pool.ok()) return pool.error();
  ScratchDir scratch;
  std::string trials_root =
      options.trials_root.empty() ? scratch.path() : options.trials_root;
  if (trials_root.empty())
    return core::IoError("cannot create a temporary directory");

  SimulationResult result;
  result.max_t = MaxT(config, table);
  ManualClock clock;
  double epoch = options.epoch.value_or(UnixNow());
  store.SetTimeSource(
      [&clock, epoch] { return epoch + SecondsSince({}, clock.Now()); });
  std::unordered_map<core::TrialId, const CurveRow*> rows;
  auto row_for = [&](core::TrialId trial) -> core::Result<const CurveRow*> {
    if (auto it = rows.find(trial); it != rows.end()) return it->second;
    auto record = store.trials().Find(trial);
    if (!record.ok()) return record.error();
    if (!record.value())
      return core::NotFound("no trial " + std::to_string(trial));
    auto row =
        picker.value().Pick(record.value()->index, record.value()->params);
    if (!row.ok()) return row.error();
    return rows[trial] = &table.rows[row.value()];
  };

  boost::asio::io_context io;
  NullProgress progress;
  Recorder recorder(config, result.max_t, clock, result);
  SimRunner* runner = nullptr;
  SweepSite site = SweepSite::Unlocked(config, config_json, trials_root);
  Sweep::Options sweep_options =
      site.Options(pool.value(), std::max(1, options.workers), "");
  sweep_options.clock = &clock;
  // With parameters, the searcher chooses among the table's rows not yet
  // run, where it can (docs/simulation.md): every method is judged on its
  // choices, not on how a point maps to a row.
  std::vector<core::Params> candidates;
  if (!config.space.params.empty()) {
    candidates = picker.value().Candidates();
    if (candidates.empty()) {
      return core::InvalidArgument(
          "no row of " + table.source +
          " lies inside the search space (each needs every parameter, a "
          "number within [low, high] or one of the choices)");
    }
    if (candidates.size() < table.rows.size()) {
      spdlog::info(
          "{}: {} of {} rows lie outside the search space; searchers that "
          "choose among rows skip them",
          table.source, table.rows.size() - candidates.size(),
          table.rows.size());
    }
  }
  sweep_options.make_searcher = [&](const ExperimentConfig& c) {
    auto searcher = schedulers::MakeSearcher(c.searcher, c.space, c.mode);
    if (!candidates.empty()) searcher->RestrictTo(std::move(candidates));
    return searcher;
  };
  sweep_options.make_runner = [&](boost::asio::io_context& loop,
                                  runner::RunnerObserver& sweep) {
    recorder.set_sweep(&sweep);
    auto made = std::make_unique<SimRunner>(loop, recorder, clock, row_for);
    runner = made.get();
    return made;
  };
  bool finished = false;
  sweep_options.on_finished = [&] {
    finished = true;
    result.makespan_s = SecondsSince({}, clock.Now());
  };
  core::Status started;
  bool within_bound = true;
  // Nothing resumes a simulation: batches are committed in groups.
  store.HoldCommits(kBatchesPerCommit);
  {
    Sweep sweep(io, config, store, progress, sweep_options);
    boost::asio::signal_set signals(io);
    if (options.stop_on_signals) {
      signals.add(SIGINT);
      signals.add(SIGTERM);
      signals.async_wait([&](const boost::system::error_code& ec, int signal) {
        if (ec) return;
        result.signal = signal;
        sweep.Interrupt(true);
      });
    }
    started = sweep.Start();
    if (started.ok()) within_bound = Drive(io, clock, sweep, options.until_s);
    result.outcome = sweep.outcome();
    result.error = sweep.error();
    result.experiment = sweep.experiment_id();
    result.trials = sweep.counts().started;
    if (runner) {
      result.device_s = runner->device_seconds();
      result.truncated_ends = runner->truncated_ends();
    }
    if (!finished) result.makespan_s = SecondsSince({}, clock.Now());
  }
  core::Status flushed = store.FlushHeld();
  store.HoldCommits(1);
  store.SetTimeSource(nullptr);
  if (!started.ok()) return started.error();
  if (!flushed.ok()) return flushed.error();
  if (!within_bound) {
    return core::InvalidArgument(
        "the simulation would pass " +
        core::FormatDouble(kMaxSimulatedSeconds) +
        " simulated seconds (about 31 years), the most it may take: give "
        "fewer trials, more workers or shorter runs ('" +
        config.name + "' is stored as interrupted)");
  }
  return result;
}

}  // namespace tuner::sim
