// SweepSite: where one experiment's sweep runs, set up the same way by every
// caller (`tuner run` and `tuner resume`, the service, the simulator): its
// trials folder, the tuner lock that makes the experiment this process's
// alone, and the Sweep::Options that follow from them. The callers add only
// what is theirs (a Slurm runner, a device share, a simulated clock).
#ifndef TUNER_TUNER_SWEEP_SWEEP_SITE_H_
#define TUNER_TUNER_SWEEP_SWEEP_SITE_H_

#include <chrono>
#include <optional>
#include <string>

#include "core/result.h"
#include "storage/trial_store.h"
#include "trial_runner/devices/device_pool.h"
#include "tuner/config/experiment_config.h"
#include "tuner/sweep/sweep.h"
#include "util/lock_file.h"

namespace tuner {

// Whether `experiment` (stored in `store`) may be taken up again: OK, or
// kAlreadyExists when it finished and no `tuner extend` raised its budget
// since (the caller says how to extend it), or kInvalidArgument when
// `tuner simulate` made it (nothing runs its trials).
core::Status CheckResumable(storage::TrialStore& store,
                            const storage::ExperimentRecord& experiment);

class SweepSite {
 public:
  // The site of the experiment `config` (stored as `config_json` in the
  // database at `db_path`): resolves its trials root and takes its tuner
  // lock, writing `owner` into it. kAlreadyExists if another tuner holds
  // the lock; the trials root's own errors (kInvalidArgument) otherwise.
  static core::Result<SweepSite> Take(const ExperimentConfig& config,
                                      const std::string& config_json,
                                      const std::string& db_path,
                                      const std::string& owner);
  // A site without a lock, in `trials_root` (a simulation's scratch folder,
  // where no trial process runs; a test's folder). `original_database`: the
  // database is the sweep's own, not a copy (CheckpointKeeper).
  static SweepSite Unlocked(const ExperimentConfig& config,
                            const std::string& config_json,
                            const std::string& trials_root,
                            bool original_database = false);

  // The options of a sweep here on `pool` (which outlives the sweep), with
  // `cpus` CPUs to pin, launching trials through the shim at `shim_path`.
  Sweep::Options Options(runner::DevicePool& pool, int cpus,
                         const std::string& shim_path) const;

  const std::string& trials_root() const { return trials_root_; }
  const std::string& lock_path() const { return lock_path_; }

 private:
  SweepSite(const ExperimentConfig& config, std::string config_json,
            std::string trials_root, bool original_database);

  std::string config_json_;
  std::string trials_root_;
  std::string lock_path_;  // empty: Unlocked
  bool original_database_;
  std::chrono::milliseconds orphan_timeout_;
  std::optional<util::LockFile> lock_;  // held as long as the site lives
};

}  // namespace tuner

#endif  // TUNER_TUNER_SWEEP_SWEEP_SITE_H_
