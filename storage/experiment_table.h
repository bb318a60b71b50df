// ExperimentTable: the experiments table (an experiment's name, status,
// objective, config, trial budget and Slurm allocation) and the paths a
// delete has yet to remove.
#ifndef TUNER_STORAGE_EXPERIMENT_TABLE_H_
#define TUNER_STORAGE_EXPERIMENT_TABLE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "storage/records.h"
#include "storage/sqlite.h"
#include "storage/write_batch.h"

namespace tuner::storage {

// Part of a TrialStore (TrialStore::experiments()): its writes join the
// store's batch. Not thread-safe, as the store.
class ExperimentTable {
 public:
  // `db` and `batch` outlive the table.
  ExperimentTable(Database& db, WriteBatch& batch) : db_(db), batch_(batch) {}

  // Fails with kAlreadyExists if the name is taken.
  core::Result<ExperimentId> Create(const ExperimentRecord& record);
  core::Result<std::optional<ExperimentRecord>> Find(const std::string& name);
  // Every experiment, oldest first.
  core::Result<std::vector<ExperimentRecord>> List();
  // `reason`: why it failed (status "failed"); cleared by any other status.
  core::Status SetStatus(ExperimentId id, core::ExperimentStatus status,
                         const std::string& reason = "");

  // The trial budget `tuner extend` set; nullopt: the config's num_trials.
  core::Result<std::optional<int64_t>> TrialBudget(ExperimentId experiment);
  // The same, read in a write batch (it opens one): a caller that ends the
  // experiment in that batch cannot miss an extension committed meanwhile.
  core::Result<std::optional<int64_t>> TrialBudgetLocked(
      ExperimentId experiment);
  // Raises the budget by `more` (from `config_budget` when none was set)
  // in a batch; returns the new budget. kInvalidArgument, and nothing
  // written, when it would pass `max`. The caller commits.
  core::Result<int64_t> ExtendTrialBudget(ExperimentId experiment,
                                          int64_t config_budget, int64_t more,
                                          int64_t max);

  // The Slurm allocation the experiment runs in (docs/slurm.md).
  core::Status SetClusterJob(ExperimentId experiment, const ClusterJob& job);
  core::Result<ClusterJob> ClusterJobOf(ExperimentId experiment);

  // The paths a delete of `name` recorded (TrialStore::DeleteExperiment)
  // and did not remove yet.
  core::Result<std::vector<std::string>> DoomedPaths(const std::string& name);
  core::Status ForgetDoomedPath(const std::string& path);

 private:
  Database& db_;
  WriteBatch& batch_;
};

}  // namespace tuner::storage

#endif  // TUNER_STORAGE_EXPERIMENT_TABLE_H_
