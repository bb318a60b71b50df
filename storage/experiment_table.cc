#include "storage/experiment_table.h"

#include <string>

#include "storage/trial_row.h"

namespace tuner::storage {

namespace {

// The columns ReadExperiment reads, in its order.
constexpr const char* kExperimentColumns =
    "id, name, status, metric, mode, time_attr, max_t, config, created_at, "
    "updated_at, reason";

// The current row of a statement that selected kExperimentColumns.
ExperimentRecord ReadExperiment(const Statement& s) {
  ExperimentRecord r;
  r.id = s.Int(0);
  r.name = s.Text(1);
  // A status this build does not know (a newer tuner's) reads as
  // interrupted: not running, and a resume may take it up.
  r.status = core::ParseExperimentStatus(s.Text(2)).value_or(
      core::ExperimentStatus::kInterrupted);
  r.metric = s.Text(3);
  r.mode = s.Text(4) == "min" ? core::Mode::kMin : core::Mode::kMax;
  r.time_attr = s.Text(5);
  r.max_t = s.OptionalDouble(6);
  r.config_json = s.Text(7);
  r.created_at = s.Double(8);
  r.updated_at = s.Double(9);
  r.reason = s.Text(10);
  return r;
}

}  // namespace

core::Result<ExperimentId> ExperimentTable::Create(
    const ExperimentRecord& record) {
  TUNER_RETURN_IF_ERROR(batch_.Begin());
  auto found = Find(record.name);
  if (!found.ok()) return found.error();
  if (found.value()) {
    return core::AlreadyExists("experiment '" + record.name +
                               "' already exists");
  }
  auto stmt = db_.Prepare(
      "INSERT INTO experiments (name, status, metric, mode, time_attr, max_t, "
      "config, created_at, updated_at) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, $now, $now)");
  if (!stmt.ok()) return stmt.error();
  stmt.value()
      .Bind(1, record.name)
      .Bind(2, core::ToString(record.status))
      .Bind(3, record.metric)
      .Bind(4, core::ToString(record.mode))
      .Bind(5, record.time_attr)
      .Bind(6, record.max_t)
      .Bind(7, record.config_json);
  TUNER_RETURN_IF_ERROR(stmt.value().Run());
  return db_.LastInsertRowId();
}

core::Result<std::optional<ExperimentRecord>> ExperimentTable::Find(
    const std::string& name) {
  auto stmt = db_.Prepare(std::string("SELECT ") + kExperimentColumns +
                          " FROM experiments WHERE name = ?1");
  if (!stmt.ok()) return stmt.error();
  stmt.value().Bind(1, name);
  auto row = stmt.value().Step();
  if (!row.ok()) return row.error();
  if (!row.value()) return std::optional<ExperimentRecord>();
  return std::optional<ExperimentRecord>(ReadExperiment(stmt.value()));
}

core::Result<std::vector<ExperimentRecord>> ExperimentTable::List() {
  auto stmt = db_.Prepare(std::string("SELECT ") + kExperimentColumns +
                          " FROM experiments ORDER BY id");
  if (!stmt.ok()) return stmt.error();
  std::vector<ExperimentRecord> out;
  TUNER_RETURN_IF_ERROR(EachRow(stmt.value(), [&] {
    out.push_back(ReadExperiment(stmt.value()));
    return core::Status::Ok();
  }));
  return out;
}

core::Status ExperimentTable::SetStatus(ExperimentId id,
                                        core::ExperimentStatus status,
                                        const std::string& reason) {
  TUNER_RETURN_IF_ERROR(batch_.Begin());
  auto stmt = db_.Prepare(
      "UPDATE experiments SET status = ?2, reason = ?3, updated_at = $now "
      "WHERE id = ?1");
  if (!stmt.ok()) return stmt.error();
  return stmt.value()
      .Bind(1, id)
      .Bind(2, core::ToString(status))
      .Bind(3, reason)
      .Run();
}

core::Result<std::optional<int64_t>> ExperimentTable::TrialBudget(
    ExperimentId experiment) {
  auto stmt = db_.Prepare("SELECT num_trials FROM experiments WHERE id = ?1");
  if (!stmt.ok()) return stmt.error();
  Statement& s = stmt.value();
  s.Bind(1, experiment);
  auto row = s.Step();
  if (!row.ok()) return row.error();
  if (!row.value() || s.IsNull(0)) return std::optional<int64_t>();
  return std::optional<int64_t>(s.Int(0));
}

core::Result<std::optional<int64_t>> ExperimentTable::TrialBudgetLocked(
    ExperimentId experiment) {
  TUNER_RETURN_IF_ERROR(batch_.Begin());
  return TrialBudget(experiment);
}

core::Result<int64_t> ExperimentTable::ExtendTrialBudget(
    ExperimentId experiment, int64_t config_budget, int64_t more, int64_t max) {
  auto budget = TrialBudgetLocked(experiment);
  if (!budget.ok()) return budget.error();
  int64_t now = budget.value().value_or(config_budget);
  int64_t raised = 0;
  if (more < 0 || __builtin_add_overflow(now, more, &raised) || raised > max) {
    return core::InvalidArgument("the budget would pass " +
                                 std::to_string(max) + " trials");
  }
  auto stmt = db_.Prepare(
      "UPDATE experiments SET num_trials = ?2, updated_at = $now "
      "WHERE id = ?1");
  if (!stmt.ok()) return stmt.error();
  TUNER_RETURN_IF_ERROR(stmt.value().Bind(1, experiment).Bind(2, raised).Run());
  return raised;
}

core::Status ExperimentTable::SetClusterJob(ExperimentId experiment,
                                            const ClusterJob& job) {
  TUNER_RETURN_IF_ERROR(batch_.Begin());
  auto stmt = db_.Prepare(
      "UPDATE experiments SET cluster_job = ?2, cluster_booked = ?3 WHERE "
      "id = ?1");
  if (!stmt.ok()) return stmt.status();
  stmt.value()
      .Bind(1, experiment)
      .Bind(2, job.job)
      .Bind(3, int64_t{job.booked ? 1 : 0});
  return stmt.value().Run();
}

core::Result<ClusterJob> ExperimentTable::ClusterJobOf(
    ExperimentId experiment) {
  auto stmt = db_.Prepare(
      "SELECT cluster_job, cluster_booked FROM experiments WHERE id = ?1");
  if (!stmt.ok()) return stmt.error();
  Statement& s = stmt.value();
  s.Bind(1, experiment);
  auto row = s.Step();
  if (!row.ok()) return row.error();
  if (!row.value()) return ClusterJob{};
  return ClusterJob{s.Text(0), s.Int(1) != 0};
}

core::Result<std::vector<std::string>> ExperimentTable::DoomedPaths(
    const std::string& name) {
  auto stmt = db_.Prepare(
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

core::Status ExperimentTable::ForgetDoomedPath(const std::string& path) {
  TUNER_RETURN_IF_ERROR(batch_.Begin());
  auto stmt = db_.Prepare("DELETE FROM doomed_paths WHERE path = ?1");
  if (!stmt.ok()) return stmt.error();
  return stmt.value().Bind(1, path).Run();
}

}  // namespace tuner::storage
