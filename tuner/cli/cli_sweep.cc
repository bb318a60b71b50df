#include "tuner/cli/cli_sweep.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <boost/asio/signal_set.hpp>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "storage/trial_store.h"
#include "trial_runner/device_locks.h"
#include "tuner/base/clock.h"
#include "tuner/base/run_contained.h"
#include "tuner/base/tuner_lock.h"
#include "tuner/cli/cli.h"
#include "tuner/cluster/slurm_setup.h"
#include "tuner/config/config_loader.h"
#include "tuner/config/device_setup.h"
#include "tuner/config/launch_spec.h"
#include "tuner/config/stored_config.h"
#include "tuner/sweep/sweep.h"
#include "tuner/text/line_progress.h"
#include "tuner/text/table_progress.h"
#include "tuner/text/terminal.h"

namespace tuner::cli {

namespace {

namespace fs = std::filesystem;

// The table on a terminal that takes escapes, else a line per event
// (docs: README "Progress").
std::unique_ptr<ProgressSink> MakeProgress(const ExperimentConfig& config,
                                           bool quiet, const Clock& clock) {
  switch (ChooseProgressStyle(quiet, isatty(STDOUT_FILENO) != 0,
                              EscapesAllowedHere())) {
    case ProgressStyle::kQuiet:
      return std::make_unique<QuietProgress>(stdout);
    case ProgressStyle::kTable:
      return std::make_unique<TableProgress>(
          stdout, config.metric, config.time_attr,
          [] { return TerminalColumns(STDOUT_FILENO); }, clock);
    case ProgressStyle::kLines:
      break;
  }
  return std::make_unique<LineProgress>(stdout, config.metric,
                                        config.time_attr);
}

int ExitCode(const Sweep& sweep, int signal, const std::string& db_path) {
  switch (sweep.outcome()) {
    case SweepOutcome::kDetached:
      return kExitOk;
    case SweepOutcome::kInterrupted:
      return signal == SIGTERM ? 143 : 130;
    case SweepOutcome::kFailed:
      // Only this sweep stopped: other tuners on the database go on.
      std::fprintf(stderr, "tuner: %s: %s\n", db_path.c_str(),
                   sweep.error().c_str());
      return kExitFailure;
    default:
      break;
  }
  const SweepCounts& c = sweep.counts();
  if (c.started > 0 && c.failed == c.started) {
    std::fprintf(stderr,
                 "tuner: all %lld trials failed; see `tuner trials` and the "
                 "trials' stderr.log\n",
                 static_cast<long long>(c.started));
    return kExitFailure;
  }
  return kExitOk;
}

// The allocation a Slurm sweep runs in: its stored one when it resumes
// (stored again if it had to be booked anew).
core::Result<SlurmAllocation> AcquireSlurm(
    const ExperimentConfig& config, storage::TrialStore& store,
    const storage::ExperimentRecord* resume) {
  storage::ClusterJob stored;
  if (resume) {
    auto job = store.GetClusterJob(resume->id);
    if (!job.ok()) return job.error();
    stored = job.value();
  }
  auto allocation =
      AcquireAllocation(config.cluster, stored.job, stored.booked, config.name);
  if (!allocation.ok()) return allocation.error();
  if (resume && allocation.value().job != stored.job) {
    TUNER_RETURN_IF_ERROR(store.SetClusterJob(
        resume->id, {allocation.value().job, allocation.value().booked}));
    TUNER_RETURN_IF_ERROR(store.Commit());
  }
  return allocation;
}

// Releases a booked allocation when the sweep is over, unless `keep` (its
// trials were left running for a later resume).
struct AllocationRelease {
  explicit AllocationRelease(const std::optional<SlurmAllocation>& a)
      : allocation(a) {}
  ~AllocationRelease() {
    if (allocation && !keep) ReleaseAllocation(*allocation);
  }
  const std::optional<SlurmAllocation>& allocation;
  bool keep = false;
};

std::string SelfPath() {
  std::error_code ec;
  return fs::read_symlink("/proc/self/exe", ec).string();
}

}  // namespace

int RunSweep(const ExperimentConfig& config, const std::string& config_json,
             const std::string& db_path, storage::TrialStore& store,
             const storage::ExperimentRecord* resume, bool quiet) {
  std::optional<SlurmAllocation> allocation;
  if (config.cluster.kind == "slurm") {
    auto acquired = AcquireSlurm(config, store, resume);
    if (!acquired.ok()) {
      std::fprintf(stderr, "tuner: slurm: %s\n", acquired.message().c_str());
      return kExitFailure;
    }
    allocation = std::move(acquired).value();
  }
  // No step outlives a sweep that ends here (not one that detaches).
  AllocationRelease release(allocation);
  auto pool = allocation
                  ? SetUpClusterDevices(config.devices, *allocation, SelfPath())
                  : SetUpDevices(config.devices, config.workdir);
  if (!pool.ok()) {
    std::fprintf(stderr, "error: %s\n", pool.message().c_str());
    return kExitBadInput;
  }
  for (const auto& warning : LauncherWarnings(config))
    spdlog::warn("{}", warning);
  boost::asio::io_context io;
  SteadyClock progress_clock(io);
  auto progress = MakeProgress(config, quiet, progress_clock);
  Sweep::Options options;
  options.config_json = config_json;
  options.trials_root = StoredTrialsRoot(config_json, db_path);
  options.cpus =
      static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  options.pool = &pool.value();
  std::string lock_path = TunerLockPath(options.trials_root, config.name);
  auto lock = HoldTunerLock(lock_path, CliOwnerText());
  if (!lock) {
    std::fprintf(stderr,
                 "tuner: another tuner is running experiment '%s' (it holds "
                 "%s)\n",
                 config.name.c_str(), lock_path.c_str());
    return kExitFailure;
  }
  options.runner.shim_path = ShimPath();
  options.runner.tuner_lock = lock_path;
  options.runner.orphan_timeout = config.trial.orphan_timeout;
  options.on_finished = [&io] { io.stop(); };
  if (allocation) {
    options.cluster_job = {allocation->job, allocation->booked};
    options.make_runner = [&](boost::asio::io_context& loop,
                              runner::RunnerObserver& observer) {
      return std::make_unique<runner::SlurmRunner>(
          loop, observer,
          SlurmRunnerOptionsFor(config.cluster, *allocation, ShimPath()));
    };
  }
  Sweep sweep(io, config, store, *progress, options);
  boost::asio::signal_set signals(io, SIGINT, SIGTERM, SIGUSR1);
  int last_signal = 0;
  std::function<void(const boost::system::error_code&, int)> on_signal =
      [&](const boost::system::error_code& ec, int signal) {
        if (ec) return;
        if (signal == SIGUSR1) {  // tuner stop --detach
          spdlog::warn(
              "detaching: trials keep running; `tuner resume {}` "
              "takes them up",
              config.name);
          sweep.Detach();
          return;
        }
        bool force = last_signal != 0;
        last_signal = signal;
        spdlog::warn(force ? "killing all trials"
                           : "stopping all trials (again to kill them now)");
        sweep.Interrupt(force);
        signals.async_wait(on_signal);
      };
  signals.async_wait(on_signal);
  core::Status started = resume ? sweep.Resume(*resume) : sweep.Start();
  if (auto s = started; !s.ok()) {
    bool taken = s.error().code == core::ErrorCode::kAlreadyExists;
    std::string where = taken ? "" : db_path + ": ";
    std::fprintf(stderr, "tuner: %s%s\n", where.c_str(), s.message().c_str());
    return taken ? kExitBadInput : kExitFailure;
  }
  if (sweep.outcome() == SweepOutcome::kRunning) RunContained(io, "sweep");
  release.keep = sweep.outcome() == SweepOutcome::kDetached;
  return ExitCode(sweep, last_signal, db_path);
}

}  // namespace tuner::cli
