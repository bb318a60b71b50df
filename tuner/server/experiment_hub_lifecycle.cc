// ExperimentHub's part of the experiment life cycle: delete and extend.
#include "tuner/server/experiment_hub.h"

namespace tuner::server {

core::Result<DeleteOutcome> ExperimentHub::Delete(const std::string& name) {
  if (running_.count(name) > 0) {
    return core::AlreadyExists("experiment '" + name +
                               "' is running; stop it first (POST "
                               "/api/experiments/" +
                               name + "/stop)");
  }
  return DeleteExperiment(store_, options_.db_path, name);
}

core::Result<ExtendOutcome> ExperimentHub::Extend(const std::string& name,
                                                  int64_t more) {
  auto outcome = ExtendExperiment(store_, options_.db_path, name, more);
  if (!outcome.ok()) return outcome;
  if (auto it = running_.find(name); it != running_.end()) {
    it->second->sweep->BudgetExtended();
    outcome.value().running = true;
  }
  return outcome;
}

}  // namespace tuner::server
