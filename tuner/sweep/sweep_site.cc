#include "tuner/sweep/sweep_site.h"

#include <utility>

#include "tuner/base/tuner_lock.h"
#include "tuner/config/stored_config.h"
#include "tuner/config/trials_root.h"
#include "tuner/sweep/experiment_lifecycle.h"

namespace tuner {

core::Status CheckResumable(storage::TrialStore& store,
                            const storage::ExperimentRecord& experiment) {
  if (experiment.status == core::ExperimentStatus::kFinished &&
      !HasBudgetLeft(store, experiment)) {
    return core::AlreadyExists("experiment '" + experiment.name +
                               "' finished already");
  }
  return RefuseSimulated(experiment.name, experiment.config_json);
}

SweepSite::SweepSite(const ExperimentConfig& config, std::string config_json,
                     std::string trials_root, bool original_database)
    : config_json_(std::move(config_json)),
      trials_root_(std::move(trials_root)),
      original_database_(original_database),
      orphan_timeout_(config.trial.orphan_timeout) {}

core::Result<SweepSite> SweepSite::Take(const ExperimentConfig& config,
                                        const std::string& config_json,
                                        const std::string& db_path,
                                        const std::string& owner) {
  auto root = NamedTrialsRoot(config_json, db_path, config.name);
  if (!root.ok()) return root.error();
  SweepSite site(config, config_json, std::move(root).value(),
                 IsStoredInDatabase(config_json, db_path));
  site.lock_path_ = TunerLockPath(site.trials_root_, config.name);
  site.lock_ = HoldTunerLock(site.lock_path_, owner);
  if (!site.lock_) {
    return core::AlreadyExists("another tuner is running experiment '" +
                               config.name + "' (it holds " + site.lock_path_ +
                               ")");
  }
  return site;
}

SweepSite SweepSite::Unlocked(const ExperimentConfig& config,
                              const std::string& config_json,
                              const std::string& trials_root,
                              bool original_database) {
  return SweepSite(config, config_json, trials_root, original_database);
}

Sweep::Options SweepSite::Options(runner::DevicePool& pool, int cpus,
                                  const std::string& shim_path) const {
  Sweep::Options options;
  options.config_json = config_json_;
  options.trials_root = trials_root_;
  options.original_database = original_database_;
  options.cpus = cpus < 1 ? 1 : cpus;
  options.pool = &pool;
  options.runner.shim_path = shim_path;
  options.runner.tuner_lock = lock_path_;
  options.runner.orphan_timeout = orphan_timeout_;
  return options;
}

}  // namespace tuner
