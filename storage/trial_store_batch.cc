// TrialStore's write batches: the transaction a write opens, Commit() that
// ends it, and the busy policy (the rest: trial_store.cc).
#include "storage/trial_store.h"

namespace tuner::storage {

core::Status TrialStore::BeginIfNeeded() {
  if (read_only_) return core::InvalidArgument("the database is read-only");
  if (db_->InTransaction()) {
    batch_open_ = true;  // a held transaction goes on
    return core::Status::Ok();
  }
  // SQLite ends a transaction by itself on some errors (a full disk).
  if (batch_open_) batch_lost_ = true;
  DiscardPending();  // what a transaction that ended had not written
  if (auto s = db_->ExecuteRetrying("BEGIN IMMEDIATE"); !s.ok()) {
    return core::IoError("cannot write to the database: " + s.message());
  }
  batch_open_ = true;
  return core::Status::Ok();
}

core::Status TrialStore::Commit() {
  if (!batch_open_) return core::Status::Ok();
  if (commit_every_ > 1 && !batch_lost_ && db_->InTransaction() &&
      ++batches_held_ < commit_every_) {
    batch_open_ = false;
    return core::Status::Ok();
  }
  batches_held_ = 0;
  bool lost = batch_lost_ || !db_->InTransaction();
  batch_open_ = batch_lost_ = false;
  core::Status status;
  if (db_->InTransaction()) {
    status = FlushPending();
    if (status.ok() && counts_) status = counts_->Flush();
    if (status.ok()) status = db_->ExecuteRetrying("COMMIT");
    // Whatever failed, the write lock is given back: other writers go on.
    if (!status.ok() && db_->InTransaction()) (void)db_->Execute("ROLLBACK");
  }
  DiscardPending();
  if (!status.ok()) {
    return core::IoError("cannot commit to the database: " + status.message());
  }
  if (lost) {
    return core::IoError(
        "cannot commit to the database: an earlier error rolled back the "
        "writes since the last commit");
  }
  return status;
}

bool TrialStore::InTransaction() const {
  return batch_open_ && db_->InTransaction();
}

void TrialStore::HoldCommits(int every) {
  commit_every_ = every < 1 ? 1 : every;
}

core::Status TrialStore::FlushHeld() {
  if (!db_->InTransaction()) return core::Status::Ok();
  batch_open_ = true;
  batches_held_ = commit_every_;
  return Commit();
}

void TrialStore::SetBusyPolicy(const BusyPolicy& policy) {
  db_->set_busy_policy(policy);
}

void TrialStore::SetTimeSource(std::function<double()> now) {
  db_->set_time_source(std::move(now));
}

core::Status TrialStore::ReleaseReserve() {
  TUNER_RETURN_IF_ERROR(BeginIfNeeded());
  return db_->Execute("DELETE FROM reserve");
}

}  // namespace tuner::storage
