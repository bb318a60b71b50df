// ExperimentHub's part of the experiment life cycle: delete and extend.
#include "tuner/server/experiment_hub.h"
#include "tuner/text/query_text.h"

namespace tuner::server {

namespace {

// An unknown name answered as every endpoint answers it (FindExperimentIn);
// any other error as it is.
core::Error AsEverywhere(storage::TrialStore& store, const std::string& name,
                         const core::Error& error) {
  if (error.code != core::ErrorCode::kNotFound) return error;
  auto found = FindExperimentIn(store, name, "this server");
  return found.ok() ? error : found.error();
}

}  // namespace

core::Result<DeleteOutcome> ExperimentHub::Delete(const std::string& name) {
  if (running_.count(name) > 0) {
    return core::AlreadyExists("experiment '" + name +
                               "' is running; stop it first (POST "
                               "/api/experiments/" +
                               name + "/stop)");
  }
  auto outcome = DeleteExperiment(store_, options_.db_path, name);
  if (!outcome.ok()) return AsEverywhere(store_, name, outcome.error());
  return outcome;
}

core::Result<ExtendOutcome> ExperimentHub::Extend(const std::string& name,
                                                  int64_t more) {
  auto outcome = ExtendExperiment(store_, options_.db_path, name, more);
  if (!outcome.ok()) return AsEverywhere(store_, name, outcome.error());
  if (auto it = running_.find(name); it != running_.end()) {
    it->second->sweep->BudgetExtended();
    outcome.value().running = true;
  }
  return outcome;
}

}  // namespace tuner::server
