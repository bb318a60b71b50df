// TrialStore's experiment life cycle: the trial budget an extension
// raised, and deleting an experiment (rows first, then its files).
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

core::Result<std::optional<int64_t>> TrialStore::TrialBudget(
    ExperimentId experiment) {
  auto stmt = db_->Prepare("SELECT num_trials FROM experiments WHERE id = ?1");
  if (!stmt.ok()) return stmt.error();
  Statement& s = stmt.value();
  s.Bind(1, experiment);
  auto row = s.Step();
  if (!row.ok()) return row.error();
  if (!row.value() || s.IsNull(0)) return std::optional<int64_t>();
  return std::optional<int64_t>(s.Int(0));
}

core::Result<std::optional<int64_t>> TrialStore::TrialBudgetLocked(
    ExperimentId experiment) {
  TUNER_RETURN_IF_ERROR(BeginIfNeeded());
  return TrialBudget(experiment);
}

core::Result<int64_t> TrialStore::ExtendTrialBudget(ExperimentId experiment,
                                                    int64_t config_budget,
                                                    int64_t more, int64_t max) {
  auto budget = TrialBudgetLocked(experiment);
  if (!budget.ok()) return budget.error();
  int64_t now = budget.value().value_or(config_budget);
  int64_t raised = 0;
  if (more < 0 || __builtin_add_overflow(now, more, &raised) || raised > max) {
    return core::InvalidArgument("the budget would pass " +
                                 std::to_string(max) + " trials");
  }
  auto stmt = db_->Prepare(
      "UPDATE experiments SET num_trials = ?2, updated_at = $now "
      "WHERE id = ?1");
  if (!stmt.ok()) return stmt.error();
  TUNER_RETURN_IF_ERROR(stmt.value().Bind(1, experiment).Bind(2, raised).Run());
  return raised;
}

core::Status TrialStore::DeleteExperiment(
    ExperimentId experiment, const std::string& name,
    const std::vector<std::string>& paths) {
  TUNER_RETURN_IF_ERROR(BeginIfNeeded());
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
  board_->Drop(experiment);
  ranks_.clear();
  return counts_->Drop(experiment);
}

core::Result<std::vector<std::string>> TrialStore::DoomedPaths(
    const std::string& name) {
  auto stmt = db_->Prepare(
      "SELECT path FROM doomed_paths WHERE experiment = ?1 ORDER BY path");
  if (!stmt.ok()) return stmt.error();
  Statement& s = stmt.value();
  s.Bind(1, name);
  std::vector<std::string> out;
  TUNER_RETURN_IF_ERROR(EachRow(s, [&] {
    out.push_back(s.Text(0));
    return core::Status::Ok();
  }));
  return out;
}

core::Status TrialStore::ForgetDoomedPath(const std::string& path) {
  TUNER_RETURN_IF_ERROR(BeginIfNeeded());
  auto stmt = db_->Prepare("DELETE FROM doomed_paths WHERE path = ?1");
  if (!stmt.ok()) return stmt.error();
  return stmt.value().Bind(1, path).Run();
}

}  // namespace tuner::storage
