#include "storage/trial_store.h"

#include <utility>

#include "storage/schema.h"

namespace tuner::storage {

TrialStore::TrialStore(std::unique_ptr<Database> db, bool read_only)
    : db_(std::move(db)),
      batch_(*db_, BatchMemory(), read_only),
      experiments_(*db_, batch_),
      leases_(*db_, batch_),
      trials_(*db_, batch_),
      reports_(*db_, batch_, trials_),
      read_only_(read_only) {}

TrialStore::~TrialStore() { (void)FlushHeld(); }

core::Result<std::unique_ptr<TrialStore>> TrialStore::Open(
    const std::string& path, BoardLimits board) {
  auto db = Database::Open(path, false);
  if (!db.ok()) return db.error();
  Database& handle = *db.value();
  // A private in-memory database (tests, benchmarks) needs no journal.
  // Switching to WAL needs a moment alone with the file: another process
  // opening it at the same time makes it busy, so it is retried.
  bool memory = path == ":memory:";
  TUNER_RETURN_IF_ERROR(handle.ExecuteRetrying(
      memory ? "PRAGMA journal_mode=OFF" : "PRAGMA journal_mode=WAL"));
  TUNER_RETURN_IF_ERROR(handle.Execute(
      memory ? "PRAGMA foreign_keys=ON;"
             : "PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON; "
               "PRAGMA cache_size=-65536;"));
  if (auto s = Migrate(handle); !s.ok()) {
    return core::Error{s.error().code, path + ": " + s.message()};
  }
  // Best effort: a full or busy file gets its reserve at a later open.
  (void)handle.Execute(
      "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE "
      "i < 16) INSERT OR IGNORE INTO reserve (id, pad) SELECT i, "
      "zeroblob(3800) FROM n");
  std::unique_ptr<TrialStore> store(
      new TrialStore(std::move(db).value(), false));
  TUNER_RETURN_IF_ERROR(store->Prepare(board));
  return store;
}

core::Result<std::unique_ptr<TrialStore>> TrialStore::OpenReadOnly(
    const std::string& path) {
  auto db = Database::Open(path, true);
  if (!db.ok()) return db.error();
  std::unique_ptr<TrialStore> store(
      new TrialStore(std::move(db).value(), true));
  if (auto s = store->Prepare(BoardLimits{}); !s.ok()) {
    return core::IoError(path + " is not a tuner database: " + s.message());
  }
  return store;
}

core::Status TrialStore::Prepare(BoardLimits board) {
  TUNER_RETURN_IF_ERROR(trials_.Prepare(read_only_, board));
  reports_.Prepare(read_only_);
  return core::Status::Ok();
}

core::Status TrialStore::Commit() { return batch_.Commit(); }

bool TrialStore::InTransaction() const { return batch_.InTransaction(); }

void TrialStore::HoldCommits(int every) { batch_.HoldCommits(every); }

core::Status TrialStore::FlushHeld() { return batch_.FlushHeld(); }

WriteBatch::Memory TrialStore::BatchMemory() {
  return {.flush = [this] { return FlushGathered(); },
          .before_commit = [this] { return trials_.FlushCounts(); },
          .forget = [this] { ForgetRows(); },
          .known_trials = [this] { return trials_.KnownTrials(); }};
}

core::Status TrialStore::FlushGathered() {
  TUNER_RETURN_IF_ERROR(trials_.Flush());
  return reports_.Flush();
}

void TrialStore::ForgetRows() {
  trials_.Forget();
  reports_.Forget();
}

void TrialStore::SetBusyPolicy(const BusyPolicy& policy) {
  db_->set_busy_policy(policy);
}

void TrialStore::SetTimeSource(std::function<double()> now) {
  db_->set_time_source(std::move(now));
}

core::Status TrialStore::ReleaseReserve() {
  TUNER_RETURN_IF_ERROR(batch_.Begin());
  return db_->Execute("DELETE FROM reserve");
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

core::Result<ChangeFeed> TrialStore::Changes() {
  TUNER_RETURN_IF_ERROR(batch_.Flush());
  return ChangeFeed(*db_, trials_.exit_times());
}

}  // namespace tuner::storage
