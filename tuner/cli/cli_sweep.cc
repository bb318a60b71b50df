#include "tuner/cli/cli_sweep.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <boost/asio/signal_set.hpp>
#include <csignal>
#include <fstream>
#include <sstream>
#include <thread>

#include "storage/trial_store.h"
#include "tuner/base/clock.h"
#include "tuner/base/run_contained.h"
#include "tuner/base/tuner_lock.h"
#include "tuner/cli/cli.h"
#include "tuner/cluster/slurm_placement.h"
#include "tuner/cluster/slurm_setup.h"
#include "tuner/config/config_loader.h"
#include "tuner/config/device_setup.h"
#include "tuner/config/launch_spec.h"
#include "tuner/config/stored_config.h"
#include "tuner/config/trials_root.h"
#include "tuner/sweep/sweep.h"
#include "tuner/sweep/sweep_site.h"
#include "tuner/text/line_progress.h"
#include "tuner/text/table_progress.h"
#include "tuner/text/terminal.h"
#include "util/lock_file.h"

namespace tuner::cli {

namespace {

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
      // Asked to (--detach), or left a moved project (said in the log).
      return sweep.error().empty() ? kExitOk : kExitFailure;
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

}  // namespace

int RunSweep(const ExperimentConfig& config, const std::string& config_json,
             const std::string& db_path, storage::TrialStore& store,
             const storage::ExperimentRecord* resume, bool quiet) {
  auto site = SweepSite::Take(config, config_json, db_path, CliOwnerText());
  if (!site.ok()) {
    bool taken = site.error().code == core::ErrorCode::kAlreadyExists;
    std::fprintf(stderr, "tuner: %s\n", site.message().c_str());
    return taken ? kExitFailure : kExitBadInput;
  }
  const std::string& trials_root = site.value().trials_root();
  if (!resume) {  // before any booking: refused at once
    auto found = store.experiments().Find(config.name);
    if (found.ok() && found.value()) {
      std::fprintf(stderr, "tuner: experiment '%s' already exists\n",
                   config.name.c_str());
      return kExitBadInput;
    }
  }
  std::optional<SlurmAllocation> allocation;
  // No step outlives a sweep that ends here (one that detaches, or a
  // resume that could not start, leaves them to the next resume).
  AllocationRelease release(allocation);
  release.keep = resume != nullptr;
  int interrupted = 0;
  auto pool = config.cluster.kind == "slurm"
                  ? SetUpSlurm(config, store, resume, trials_root, allocation,
                               interrupted)
                  : SetUpDevices(config.devices, config.workdir);
  if (interrupted) {
    std::fprintf(stderr, "tuner: interrupted while setting up on Slurm%s\n",
                 resume ? "" : "; nothing was left booked");
    return 128 + interrupted;
  }
  if (!pool.ok()) {
    bool runtime = pool.error().code == core::ErrorCode::kUnavailable;
    return Fail(pool.message(), runtime ? kExitFailure : kExitBadInput);
  }
  for (const auto& warning : LauncherWarnings(config))
    spdlog::warn("{}", warning);
  boost::asio::io_context io;
  SteadyClock progress_clock(io);
  auto progress = MakeProgress(config, quiet, progress_clock);
  Sweep::Options options = site.value().Options(
      pool.value(),
      static_cast<int>(std::max(1u, std::thread::hardware_concurrency())),
      ShimPath());
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
  release.keep = false;  // the sweep started: it owns the allocation
  if (sweep.outcome() == SweepOutcome::kRunning) RunContained(io, "sweep");
  release.keep = sweep.outcome() == SweepOutcome::kDetached;
  return ExitCode(sweep, last_signal, db_path);
}

}  // namespace tuner::cli
