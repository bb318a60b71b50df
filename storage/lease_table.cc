#include "storage/lease_table.h"

#include <string>

#include "storage/trial_row.h"

namespace tuner::storage {

core::Result<int64_t> LeaseTable::Open(const LeaseRecord& lease) {
  TUNER_RETURN_IF_ERROR(batch_.Begin());
  TUNER_RETURN_IF_ERROR(batch_.Flush());  // its trial's row, if gathered
  auto stmt = db_.Prepare(
      "INSERT INTO leases (trial_id, attempt, kind, devices, cpus, node, "
      "acquired_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, $now)");
  if (!stmt.ok()) return stmt.error();
  Statement& s = stmt.value();
  s.Bind(1, lease.trial).Bind(2, lease.attempt).Bind(3, lease.kind);
  s.Bind(4, lease.devices).Bind(5, lease.cpus).Bind(6, lease.node);
  TUNER_RETURN_IF_ERROR(s.Run());
  return db_.LastInsertRowId();
}

core::Status LeaseTable::Close(int64_t lease) {
  TUNER_RETURN_IF_ERROR(batch_.Begin());
  auto stmt = db_.Prepare(
      "UPDATE leases SET released_at = $now WHERE id = ?1 AND "
      "released_at IS NULL");
  if (!stmt.ok()) return stmt.status();
  stmt.value().Bind(1, lease);
  return stmt.value().Run();
}

core::Result<std::optional<LeaseRecord>> LeaseTable::Held(core::TrialId trial) {
  auto stmt = db_.Prepare(std::string("SELECT ") + kLeaseColumns +
                          " FROM leases WHERE trial_id = ?1 AND "
                          "released_at IS NULL ORDER BY id DESC LIMIT 1");
  if (!stmt.ok()) return stmt.error();
  Statement& s = stmt.value();
  s.Bind(1, trial);
  auto row = s.Step();
  if (!row.ok()) return row.error();
  if (!row.value()) return std::optional<LeaseRecord>();
  return std::optional<LeaseRecord>(ReadLeaseRow(s));
}

core::Result<std::vector<LeaseRecord>> LeaseTable::List(
    ExperimentId experiment) {
  TUNER_RETURN_IF_ERROR(batch_.Flush());
  auto stmt = db_.Prepare(std::string("SELECT ") + kLeaseColumns +
                          " FROM leases WHERE trial_id IN (SELECT id FROM "
                          "trials WHERE experiment_id = ?1) ORDER BY id");
  if (!stmt.ok()) return stmt.error();
  Statement& s = stmt.value();
  s.Bind(1, experiment);
  return ReadLeaseRows(s);
}

}  // namespace tuner::storage
