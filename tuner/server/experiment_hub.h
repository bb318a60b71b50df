// ExperimentHub: the service's running experiments. They share one event
// loop (the sweeps' thread), one database and the machine's devices.
#ifndef TUNER_TUNER_SERVER_EXPERIMENT_HUB_H_
#define TUNER_TUNER_SERVER_EXPERIMENT_HUB_H_

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>  // before Asio: Boost 1.74 with GCC 12 needs it
#include <vector>

#include "core/result.h"
#include "storage/trial_store.h"
#include "trial_runner/devices/device_pool.h"
#include "tuner/config/experiment_config.h"
#include "tuner/server/event_bus.h"
#include "tuner/server/event_progress.h"
#include "tuner/sweep/device_share.h"
#include "tuner/sweep/experiment_lifecycle.h"
#include "tuner/sweep/sweep.h"
#include "tuner/sweep/sweep_site.h"
#include "util/lock_file.h"

namespace tuner::server {

// What /metrics and the API say of a running experiment. A copy, safe to
// read on any thread.
struct RunningInfo {
  std::string name;
  double priority = 1;
  int held_devices = 0;
  bool stopping = false;
};

// Every method but Running() runs on the io_context's thread (the HTTP side
// posts to it). A sweep never waits for the HTTP side.
class ExperimentHub {
 public:
  struct Options {
    std::string db_path;  // experiments' trial directories live next to it
    std::string shim_path;
    std::string owner;  // written into each experiment's tuner lock
    int cpus = 1;
  };

  ExperimentHub(boost::asio::io_context& io, storage::TrialStore& store,
                EventBus& bus, Options options);
  ~ExperimentHub();

  // Starts a new experiment on `pool`, which the caller made from the
  // config (SetUpDevices) on its own thread: detection runs vendor tools,
  // and the sweeps' thread must not wait for them. kAlreadyExists when the
  // name is taken (a stored experiment says whether to resume it).
  core::Status Submit(const ExperimentConfig& config,
                      const std::string& stored_json, runner::DevicePool pool);
  // Stops its trials (at once when `force`); it ends as interrupted.
  // kNotFound for an unknown name; kAlreadyExists for a stored one that
  // does not run here, saying who runs it (a CLI tuner, its pid) and how
  // to stop it, or its status.
  core::Status Stop(const std::string& name, bool force);
  // A stored experiment that may be taken up here, and its config.
  struct Resumable {
    storage::ExperimentRecord record;
    ExperimentConfig config;
  };
  // Experiment `name` if it may be taken up here: kAlreadyExists when it
  // runs or finished (saying how to extend it), kNotFound, or
  // CheckResumable's refusal.
  core::Result<Resumable> FindResumable(const std::string& name);
  // Takes up a stored experiment that did not finish (adopting trials that
  // still run) on `pool`, which the caller made from FindResumable's
  // devices on its own thread, as for Submit. Checks FindResumable again.
  core::Status Resume(const std::string& name, runner::DevicePool pool);
  // Deletes a stored experiment that does not run here (kAlreadyExists
  // when it does, or when another tuner runs it): DeleteExperiment.
  core::Result<DeleteOutcome> Delete(const std::string& name);
  // Raises its trial budget (ExtendExperiment); a sweep running it here
  // launches the new trials at once.
  core::Result<ExtendOutcome> Extend(const std::string& name, int64_t more);
  // The stored experiments whose status is still "running" and that do
  // not run here (a previous service died while they ran).
  std::vector<std::string> Unfinished();
  // Stops every experiment; `done` runs once all have ended.
  void Shutdown(std::function<void()> done);
  // Kills every experiment's trials at once.
  void KillAll();
  // What each experiment's tuner lock says (`tuner stop` reads it).
  void set_owner(std::string owner) { options_.owner = std::move(owner); }

  // Thread-safe: a copy of the running experiments' state, at most
  // kSnapshotPeriod old (the hub refreshes it on its own timer and after
  // every change it makes).
  std::vector<RunningInfo> Running() const;
  static constexpr std::chrono::milliseconds kSnapshotPeriod{100};

 private:
  // kNotFound for a name it has no experiment of, worded as every
  // endpoint words it (FindExperimentIn: "... in this server").
  core::Error UnknownName(const std::string& name);
  struct Experiment {
    ExperimentConfig config;
    std::unique_ptr<EventProgress> progress;
    std::unique_ptr<runner::DevicePool> pool;
    std::optional<SweepSite> site;  // its trials folder and tuner lock
    std::unique_ptr<Sweep> sweep;
    bool stopping = false;
  };
  core::Result<std::unique_ptr<Experiment>> Prepare(
      const ExperimentConfig& config, const std::string& stored_json,
      runner::DevicePool pool);
  core::Status Started(std::unique_ptr<Experiment> experiment,
                       const core::Status& status);
  void Ended(const std::string& name);
  // Who runs `experiment` instead of this service (its tuner lock is held
  // by a CLI tuner or another service) and how to stop it; "" when none.
  std::string RunElsewhere(const storage::ExperimentRecord& experiment) const;
  void RefreshSnapshot();
  void ScheduleRefresh();

  boost::asio::io_context& io_;
  storage::TrialStore& store_;
  EventBus& bus_;
  Options options_;
  DeviceShare share_;
  std::map<std::string, std::unique_ptr<Experiment>> running_;
  std::function<void()> on_all_ended_;
  boost::asio::steady_timer refresh_timer_;
  mutable std::mutex snapshot_mutex_;
  std::vector<RunningInfo> snapshot_;
};

}  // namespace tuner::server

#endif  // TUNER_TUNER_SERVER_EXPERIMENT_HUB_H_
