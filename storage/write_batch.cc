#include "storage/write_batch.h"

#include <string>
#include <utility>

namespace tuner::storage {

WriteBatch::WriteBatch(Database& db, Memory memory, bool read_only)
    : db_(db), memory_(std::move(memory)), read_only_(read_only) {}

core::Status WriteBatch::Begin() {
  if (read_only_) return core::InvalidArgument("the database is read-only");
  if (db_.InTransaction()) {
    // An open batch, or a held transaction that goes on.
    if (phase_ == Phase::kNone) phase_ = Phase::kOpen;
    return core::Status::Ok();
  }
  // SQLite ends a transaction by itself on some errors (a full disk).
  if (phase_ != Phase::kNone) {
    phase_ = Phase::kLost;
    Forget();  // what it had not written
  }
  if (auto s = db_.ExecuteRetrying("BEGIN IMMEDIATE"); !s.ok()) {
    return core::IoError("cannot write to the database: " + s.message());
  }
  // What the writer knows of its rows from earlier transactions holds
  // while no other connection committed since.
  if (!known_version_ || *known_version_ != db_.DataVersion()) Forget();
  if (phase_ == Phase::kNone) phase_ = Phase::kOpen;
  return core::Status::Ok();
}

core::Status WriteBatch::Commit() {
  if (phase_ == Phase::kNone) return core::Status::Ok();
  bool lost = phase_ == Phase::kLost || !db_.InTransaction();
  if (commit_every_ > 1 && !lost && ++batches_held_ < commit_every_) {
    phase_ = Phase::kNone;
    return core::Status::Ok();
  }
  batches_held_ = 0;
  phase_ = Phase::kNone;
  core::Status status;
  if (db_.InTransaction()) {
    status = Flush();
    if (status.ok()) status = memory_.before_commit();
    if (status.ok()) status = db_.ExecuteRetrying("COMMIT");
    // Whatever failed, the write lock is given back: other writers go on.
    if (!status.ok() && db_.InTransaction()) (void)db_.Execute("ROLLBACK");
  }
  if (status.ok() && !lost) {
    KeepKnown();
  } else {
    Forget();
  }
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

core::Status WriteBatch::Flush() {
  // SQLite rolled the transaction back by itself (a full disk): what was
  // gathered is lost with it, and Commit() says so.
  if (!db_.InTransaction()) {
    Forget();
    return core::Status::Ok();
  }
  return memory_.flush();
}

bool WriteBatch::InTransaction() const {
  return phase_ != Phase::kNone && db_.InTransaction();
}

void WriteBatch::HoldCommits(int every) {
  commit_every_ = every < 1 ? 1 : every;
}

core::Status WriteBatch::FlushHeld() {
  if (!db_.InTransaction()) return core::Status::Ok();
  if (phase_ == Phase::kNone) phase_ = Phase::kOpen;
  batches_held_ = commit_every_;
  return Commit();
}

void WriteBatch::Forget() {
  known_version_.reset();
  memory_.forget();
}

void WriteBatch::KeepKnown() {
  if (memory_.known_trials() > kMaxKnownTrials) {
    Forget();  // bounded memory: the next transaction reads again
    return;
  }
  known_version_ = db_.DataVersion();
}

}  // namespace tuner::storage
