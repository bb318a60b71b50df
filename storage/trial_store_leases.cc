// What TrialStore's adoption needs of a trial (its shim, its retries, the
// offset of its last report) (the rest: trial_store.cc; the leases:
// lease_table.h).
#include <limits>

#include "storage/trial_row.h"
#include "storage/trial_store.h"

namespace tuner::storage {

core::Status TrialStore::SetShim(core::TrialId trial,
                                 std::optional<int64_t> pid,
                                 std::optional<int64_t> start) {
  TUNER_RETURN_IF_ERROR(BeginIfNeeded());
  auto stmt = db_->Prepare(
      "UPDATE trials SET shim_pid = ?2, shim_start = ?3 WHERE id = ?1");
  if (!stmt.ok()) return stmt.status();
  Statement& s = stmt.value();
  s.Bind(1, trial);
  pid ? (void)s.Bind(2, *pid) : (void)s.BindNull(2);
  start ? (void)s.Bind(3, *start) : (void)s.BindNull(3);
  return s.Run();
}

core::Result<std::optional<int64_t>> TrialStore::LastOffset(core::TrialId trial,
                                                            int64_t attempt) {
  TUNER_RETURN_IF_ERROR(batch_.Flush());
  auto stmt = db_->Prepare(
      "SELECT offset FROM reports WHERE trial_id = ?1 AND attempt = ?2 AND "
      "offset IS NOT NULL ORDER BY seq DESC LIMIT 1");
  if (!stmt.ok()) return stmt.error();
  Statement& s = stmt.value();
  s.Bind(1, trial).Bind(2, attempt);
  auto row = s.Step();
  if (!row.ok()) return row.error();
  if (!row.value()) return std::optional<int64_t>();
  return std::optional<int64_t>(s.Int(0));
}

core::Status TrialStore::SetRetries(core::TrialId trial,
                                    const RetryCounts& counts) {
  TUNER_RETURN_IF_ERROR(BeginIfNeeded());
  auto stmt = db_->Prepare(
      "UPDATE trials SET failures = ?2, device_retries = ?3 WHERE id = ?1");
  if (!stmt.ok()) return stmt.status();
  Statement& s = stmt.value();
  s.Bind(1, trial).Bind(2, counts.failures).Bind(3, counts.device_retries);
  return s.Run();
}

core::Result<RetryCounts> TrialStore::Retries(core::TrialId trial) {
  auto stmt =
      db_->Prepare("SELECT failures, device_retries FROM trials WHERE id = ?1");
  if (!stmt.ok()) return stmt.error();
  Statement& s = stmt.value();
  s.Bind(1, trial);
  auto row = s.Step();
  if (!row.ok()) return row.error();
  if (!row.value()) return RetryCounts{};
  return RetryCounts{s.Int(0), s.Int(1)};
}

core::Status TrialStore::LimitPages(int64_t pages) {
  return db_->Execute("PRAGMA max_page_count = " + std::to_string(pages));
}

core::Result<std::string> TrialStore::IntegrityCheck() {
  auto stmt = db_->Prepare("PRAGMA integrity_check");
  if (!stmt.ok()) return stmt.error();
  auto row = stmt.value().Step();
  if (!row.ok()) return row.error();
  return row.value() ? stmt.value().Text(0) : std::string("no answer");
}

}  // namespace tuner::storage
