// TrialStore's write batches: the transaction a write opens, Commit() that
// ends it, what a transaction gathers before it writes (rows, last values,
// ranks) and what the store knows of its rows between transactions, and the
// busy policy (the rest: trial_store.cc).
#include <cmath>

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
  if (batch_lost_) DiscardPending();  // what it had not written
  if (auto s = db_->ExecuteRetrying("BEGIN IMMEDIATE"); !s.ok()) {
    return core::IoError("cannot write to the database: " + s.message());
  }
  // What this store knows of its rows from earlier transactions holds
  // while no other connection committed since.
  if (!known_version_ || *known_version_ != db_->DataVersion()) {
    DiscardPending();
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
  if (status.ok() && !lost) {
    KeepKnownRows();
  } else {
    DiscardPending();
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

void TrialStore::KeepKnownRows() {
  size_t known = ranks_.size() + (counts_ ? counts_->KnownTrials() : 0);
  if (known > kMaxKnownTrials) {
    DiscardPending();  // bounded memory: the next transaction reads again
    return;
  }
  known_version_ = db_->DataVersion();
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

core::Result<TrialStore::RankState*> TrialStore::RankOf(core::TrialId trial) {
  auto found = ranks_.find(trial);
  if (found != ranks_.end()) return &found->second;
  Statement& s = statements_->trial_rank;
  auto row = s.Bind(1, trial).Step();
  if (!row.ok()) return row.error();
  RankState* state = nullptr;
  if (row.value()) {
    state = &ranks_[trial];
    *state = {s.Int(0), s.Int(1) != 0, s.OptionalDouble(2),
              s.OptionalDouble(3)};
  }
  s.Reset();
  return state;
}

core::Status TrialStore::Rerank(core::TrialId trial, bool replaces_time,
                                std::optional<double> time,
                                std::optional<double> value, core::Mode mode) {
  if (!boards_) return core::Status::Ok();
  auto state = RankOf(trial);
  if (!state.ok()) return state.status();
  RankState* rank = state.value();
  if (!rank) return core::Status::Ok();
  if (replaces_time || AsStored(time)) rank->time = AsStored(time);
  if (AsStored(value)) rank->key = mode == core::Mode::kMax ? -*value : *value;
  if (!rank->key) return core::Status::Ok();
  return board_->Ranked(rank->experiment, Rank{*rank->key, rank->time, trial},
                        rank->on_board);
}

core::Status TrialStore::FlushPending() {
  // SQLite rolled the transaction back by itself (a full disk): what it
  // gathered is lost with it, and Commit() says so.
  if (!db_->InTransaction()) {
    DiscardPending();
    return core::Status::Ok();
  }
  if (params_) TUNER_RETURN_IF_ERROR(params_->Flush());
  if (reports_) TUNER_RETURN_IF_ERROR(reports_->Flush());
  if (decisions_) TUNER_RETURN_IF_ERROR(decisions_->Flush());
  TUNER_RETURN_IF_ERROR(FlushLastValues());
  return board_ ? board_->Flush() : core::Status::Ok();
}

void TrialStore::DiscardPending() {
  known_version_.reset();
  pending_last_.clear();
  if (params_) params_->Discard();
  if (reports_) reports_->Discard();
  if (decisions_) decisions_->Discard();
  if (counts_) counts_->Discard();
  if (board_) board_->Discard();
  ranks_.clear();
}

core::Status TrialStore::FlushLastValues() {
  for (const auto& [trial, last] : pending_last_) {
    TUNER_RETURN_IF_ERROR(statements_->update_last.Bind(1, trial)
                              .Bind(2, last.time)
                              .Bind(3, last.value)
                              .Bind(4, core::ToString(last.mode))
                              .Bind(5, last.best)
                              .Run());
    TUNER_RETURN_IF_ERROR(Rerank(trial, /*replaces_time=*/true, last.time,
                                 last.value, last.mode));
  }
  pending_last_.clear();
  return core::Status::Ok();
}

}  // namespace tuner::storage
