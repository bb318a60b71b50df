// Deleting an experiment: its rows in every table, and its files recorded
// as doomed (the rest of its life cycle: experiment_table.h).
#include "storage/trial_row.h"
#include "storage/trial_store.h"

namespace tuner::storage {

namespace {

// The rows of an experiment, children first (no row ever points at a
// deleted one, whatever the foreign-key setting).
constexpr const char* kDeleteRows[] = {
    "DELETE FROM params WHERE trial_id IN "
    "(SELECT id FROM trials WHERE experiment_id = ?1)",
    "DELETE FROM reports WHERE trial_id IN "
    "(SELECT id FROM trials WHERE experiment_id = ?1)",
    "DELETE FROM decisions WHERE trial_id IN "
    "(SELECT id FROM trials WHERE experiment_id = ?1)",
    "DELETE FROM leases WHERE trial_id IN "
    "(SELECT id FROM trials WHERE experiment_id = ?1)",
    "DELETE FROM trials WHERE experiment_id = ?1",
    "DELETE FROM experiments WHERE id = ?1",
};

}  // namespace

core::Status TrialStore::DeleteExperiment(
    ExperimentId experiment, const std::string& name,
    const std::vector<std::string>& paths) {
  TUNER_RETURN_IF_ERROR(batch_.Begin());
  TUNER_RETURN_IF_ERROR(batch_.Flush());  // rows of its trials included
  auto doom = db_->Prepare(
      "INSERT OR IGNORE INTO doomed_paths (path, experiment, created_at) "
      "VALUES (?1, ?2, $now)");
  if (!doom.ok()) return doom.error();
  for (const auto& path : paths) {
    TUNER_RETURN_IF_ERROR(doom.value().Bind(1, path).Bind(2, name).Run());
  }
  for (const char* sql : kDeleteRows) {
    auto stmt = db_->Prepare(sql);
    if (!stmt.ok()) return stmt.error();
    TUNER_RETURN_IF_ERROR(stmt.value().Bind(1, experiment).Run());
  }
  return trials_.Dropped(experiment);
}

}  // namespace tuner::storage
