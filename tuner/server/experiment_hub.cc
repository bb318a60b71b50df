#include "tuner/server/experiment_hub.h"

#include <spdlog/spdlog.h>

#include <boost/asio/post.hpp>
#include <nlohmann/json.hpp>

#include "core/printable.h"
#include "tuner/base/tuner_lock.h"
#include "tuner/config/device_setup.h"
#include "tuner/config/launch_spec.h"
#include "tuner/config/stored_config.h"
#include "tuner/config/trials_root.h"
#include "tuner/sweep/sweep_site.h"
#include "tuner/text/query_text.h"

namespace tuner::server {

ExperimentHub::ExperimentHub(boost::asio::io_context& io,
                             storage::TrialStore& store, EventBus& bus,
                             Options options)
    : io_(io),
      store_(store),
      bus_(bus),
      options_(std::move(options)),
      share_(io),
      refresh_timer_(io) {
  ScheduleRefresh();
}

ExperimentHub::~ExperimentHub() {
  // Sweeps first: they leave the share and commit to the store.
  for (auto& [name, experiment] : running_) experiment->sweep.reset();
}

core::Result<std::unique_ptr<ExperimentHub::Experiment>> ExperimentHub::Prepare(
    const ExperimentConfig& config, const std::string& stored_json,
    runner::DevicePool pool) {
  if (running_.count(config.name) > 0) {
    return core::AlreadyExists("experiment '" + config.name +
                               "' is running already");
  }
  if (config.cluster.kind != "local") {
    return core::InvalidArgument(
        "cluster.kind " + config.cluster.kind +
        ": the service runs trials on its own machine; run this experiment "
        "with `tuner run` (docs/slurm.md)");
  }
  for (const auto& warning : LauncherWarnings(config))
    spdlog::warn("experiment '{}': {}", config.name, warning);
  auto site =
      SweepSite::Take(config, stored_json, options_.db_path, options_.owner);
  if (!site.ok()) return site.error();
  auto experiment = std::make_unique<Experiment>();
  experiment->config = config;
  experiment->pool = std::make_unique<runner::DevicePool>(std::move(pool));
  experiment->site.emplace(std::move(site).value());
  experiment->progress =
      std::make_unique<EventProgress>(bus_, config.name, config.mode);
  Sweep::Options sweep = experiment->site->Options(
      *experiment->pool, options_.cpus, options_.shim_path);
  sweep.share = &share_;
  sweep.priority = config.priority;
  std::string name = config.name;
  // After the sweep's own call stack unwinds: it cannot destroy itself.
  sweep.on_finished = [this, name] {
    boost::asio::post(io_, [this, name] { Ended(name); });
  };
  try {  // its searcher and scheduler are built here
    experiment->sweep =
        std::make_unique<Sweep>(io_, experiment->config, store_,
                                *experiment->progress, std::move(sweep));
  } catch (const std::exception& e) {
    return core::Internal("experiment '" + name +
                          "' cannot be set up: " + e.what());
  }
  return experiment;
}

core::Status ExperimentHub::Started(std::unique_ptr<Experiment> experiment,
                                    const core::Status& status) {
  if (!status.ok()) return status;
  std::string name = experiment->config.name;
  nlohmann::json data = {{"experiment", name},
                         {"priority", experiment->config.priority}};
  bus_.Publish("experiment_started", data.dump());
  bool ended = experiment->sweep->outcome() != SweepOutcome::kRunning;
  running_[name] = std::move(experiment);
  if (ended) boost::asio::post(io_, [this, name] { Ended(name); });
  RefreshSnapshot();
  return core::Status::Ok();
}

core::Status ExperimentHub::Submit(const ExperimentConfig& config,
                                   const std::string& stored_json,
                                   runner::DevicePool pool) {
  auto stored = store_.experiments().Find(config.name);
  if (!stored.ok()) return stored.status();
  if (stored.value()) {
    bool finished = stored.value()->status == core::ExperimentStatus::kFinished;
    return core::AlreadyExists(
        "experiment '" + config.name + "' exists already (" +
        std::string(core::ToString(stored.value()->status)) + ")" +
        (finished ? "; give the new one another name"
                  : "; POST /api/experiments/" + config.name +
                        "/resume takes it up"));
  }
  auto experiment = Prepare(config, stored_json, std::move(pool));
  if (!experiment.ok()) return experiment.status();
  Sweep& sweep = *experiment.value()->sweep;
  core::Status started = sweep.Start();
  spdlog::info("experiment '{}' submitted (priority {})", config.name,
               config.priority);
  return Started(std::move(experiment).value(), started);
}

core::Result<ExperimentHub::Resumable> ExperimentHub::FindResumable(
    const std::string& name) {
  if (running_.count(name) > 0) {
    return core::AlreadyExists("experiment '" + name + "' is running");
  }
  auto stored = store_.experiments().Find(name);
  if (!stored.ok()) return stored.error();
  if (!stored.value()) return UnknownName(name);
  core::Status resumable = CheckResumable(store_, *stored.value());
  if (!resumable.ok() &&
      resumable.error().code == core::ErrorCode::kAlreadyExists) {
    return core::AlreadyExists("experiment '" + name +
                               "' finished already: add trials with `tuner "
                               "extend " +
                               name + " --trials N`, then resume it");
  }
  if (!resumable.ok()) return resumable.error();
  auto config = LoadStoredConfig(stored.value()->config_json, options_.db_path);
  if (!config.ok()) return config.error();
  return Resumable{*stored.value(), std::move(config).value()};
}

core::Status ExperimentHub::Resume(const std::string& name,
                                   runner::DevicePool pool) {
  // Checked again: the experiment may have changed since the caller's
  // FindResumable (another resume, a delete).
  auto found = FindResumable(name);
  if (!found.ok()) return found.status();
  const Resumable& resumable = found.value();
  auto experiment =
      Prepare(resumable.config, resumable.record.config_json, std::move(pool));
  if (!experiment.ok()) return experiment.status();
  core::Status resumed = experiment.value()->sweep->Resume(resumable.record);
  spdlog::info("experiment '{}' resumed", name);
  return Started(std::move(experiment).value(), resumed);
}

std::vector<std::string> ExperimentHub::Unfinished() {
  std::vector<std::string> names;
  auto all = store_.experiments().List();
  if (!all.ok()) return names;
  for (const auto& e : all.value()) {
    if (e.status == core::ExperimentStatus::kRunning &&
        running_.count(e.name) == 0)
      names.push_back(e.name);
  }
  return names;
}

core::Status ExperimentHub::Stop(const std::string& name, bool force) {
  auto it = running_.find(name);
  if (it == running_.end()) {
    // 409 for a known experiment in another state, 404 for an unknown name.
    auto stored = store_.experiments().Find(name);
    if (stored.ok() && stored.value()) {
      std::string elsewhere = RunElsewhere(*stored.value());
      if (!elsewhere.empty()) return core::AlreadyExists(elsewhere);
      // Stored as running with no tuner: one was killed while it ran.
      std::string state =
          stored.value()->status == core::ExperimentStatus::kRunning
              ? "no tuner runs it since its tuner ended without stopping "
                "it; take it up with POST .../resume (tuner resume " +
                    name + " --server), then stop it"
              : "it is " + std::string(core::ToString(stored.value()->status));
      return core::AlreadyExists("experiment '" + name + "' is not running (" +
                                 state + ")");
    }
    return UnknownName(name);
  }
  it->second->stopping = true;
  it->second->sweep->Interrupt(force);
  RefreshSnapshot();
  return core::Status::Ok();
}

std::string ExperimentHub::RunElsewhere(
    const storage::ExperimentRecord& experiment) const {
  auto root = NamedTrialsRoot(experiment.config_json, options_.db_path,
                              experiment.name);
  if (!root.ok()) return "";  // no lock is looked for by such a name
  std::string lock = TunerLockPath(root.value(), experiment.name);
  util::LockState state = util::ProbeLock(lock);
  if (!state.held) return "";
  LockOwner owner = ParseLockOwner(state.owner);
  const std::string& name = experiment.name;
  if (!owner.server_url.empty()) {
    return "experiment '" + name + "' is run by the service at " +
           owner.server_url + "; stop it there: tuner stop " + name +
           " --server " + owner.server_url;
  }
  std::string pid =
      owner.pid ? " (pid " + std::to_string(*owner.pid) + ")" : "";
  return "experiment '" + name + "' is run by a CLI tuner" + pid +
         ", not by this service; stop it on the machine that runs it: "
         "tuner stop " +
         name + " --db " + options_.db_path;
}

void ExperimentHub::Shutdown(std::function<void()> done) {
  on_all_ended_ = std::move(done);
  if (running_.empty()) {
    boost::asio::post(io_, [this] {
      if (on_all_ended_) std::exchange(on_all_ended_, nullptr)();
    });
    return;
  }
  for (auto& [name, experiment] : running_) {
    experiment->stopping = true;
    experiment->sweep->Interrupt(false);
  }
}

void ExperimentHub::KillAll() {
  for (auto& [name, experiment] : running_) {
    experiment->stopping = true;
    experiment->sweep->Interrupt(true);
  }
}

void ExperimentHub::Ended(const std::string& name) {
  auto it = running_.find(name);
  if (it == running_.end()) return;
  const Sweep& sweep = *it->second->sweep;
  if (sweep.outcome() == SweepOutcome::kFailed) {
    spdlog::error("experiment '{}' failed: {}", name, sweep.error());
  } else {
    spdlog::info("experiment '{}' ended", name);
  }
  running_.erase(it);
  RefreshSnapshot();
  if (running_.empty() && on_all_ended_) {
    std::exchange(on_all_ended_, nullptr)();
  }
}

void ExperimentHub::ScheduleRefresh() {
  refresh_timer_.expires_after(kSnapshotPeriod);
  refresh_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec) return;
    RefreshSnapshot();
    ScheduleRefresh();
  });
}

void ExperimentHub::RefreshSnapshot() {
  std::vector<RunningInfo> snapshot;
  for (const auto& [name, experiment] : running_) {
    snapshot.push_back({name, experiment->config.priority,
                        experiment->sweep->HeldDevices(),
                        experiment->stopping});
  }
  std::lock_guard<std::mutex> lock(snapshot_mutex_);
  snapshot_ = std::move(snapshot);
}

std::vector<RunningInfo> ExperimentHub::Running() const {
  std::lock_guard<std::mutex> lock(snapshot_mutex_);
  return snapshot_;
}

core::Error ExperimentHub::UnknownName(const std::string& name) {
  auto found = FindExperimentIn(store_, name, "this server");
  return found.ok() ? core::NotFound("no experiment " + core::QuotedInput(name))
                    : found.error();
}

}  // namespace tuner::server
