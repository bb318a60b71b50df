// TrialStore's side of its write batches (WriteBatch): what a transaction
// gathers before it writes (rows, last values, ranks) and what the store
// knows of its rows between transactions; the busy policy (the rest:
// trial_store.cc).
#include <cmath>

#include "storage/trial_store.h"

namespace tuner::storage {

core::Status TrialStore::BeginIfNeeded() { return batch_.Begin(); }

core::Status TrialStore::Commit() { return batch_.Commit(); }

bool TrialStore::InTransaction() const { return batch_.InTransaction(); }

void TrialStore::HoldCommits(int every) { batch_.HoldCommits(every); }

core::Status TrialStore::FlushHeld() { return batch_.FlushHeld(); }

WriteBatch::Memory TrialStore::BatchMemory() {
  return {
      .flush = [this] { return FlushGathered(); },
      .before_commit =
          [this] { return counts_ ? counts_->Flush() : core::Status::Ok(); },
      .forget = [this] { ForgetRows(); },
      .known_trials =
          [this] {
            return ranks_.size() + (counts_ ? counts_->KnownTrials() : 0);
          }};
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

core::Result<std::optional<bool>> TrialStore::PlaceOnBoard(
    core::TrialId trial, bool replaces_time, std::optional<double> time,
    std::optional<double> value, core::Mode mode) {
  if (!boards_) return std::optional<bool>();
  auto state = RankOf(trial);
  if (!state.ok()) return state.error();
  RankState* rank = state.value();
  if (!rank) return std::optional<bool>();
  if (replaces_time || AsStored(time)) rank->time = AsStored(time);
  if (AsStored(value)) rank->key = mode == core::Mode::kMax ? -*value : *value;
  if (!rank->key) return std::optional<bool>();
  auto placed = board_->Place(
      rank->experiment, Rank{*rank->key, rank->time, trial}, rank->on_board);
  if (!placed.ok()) ranks_.erase(trial);
  return placed;
}

core::Status TrialStore::AfterPlaced(core::TrialId trial,
                                     const core::Status& written) {
  if (!board_) return written;
  if (written.ok()) return board_->Settle();
  board_->Abandon();
  ranks_.erase(trial);  // its rank is the row's again: read it anew
  return written;
}

void TrialStore::BindContender(Statement& stmt, int index,
                               std::optional<bool> contender) {
  if (!boards_) return;
  if (contender) {
    stmt.Bind(index, static_cast<int64_t>(*contender));
  } else {
    stmt.BindNull(index);
  }
}

core::Status TrialStore::FlushGathered() {
  if (params_) TUNER_RETURN_IF_ERROR(params_->Flush());
  if (reports_) TUNER_RETURN_IF_ERROR(reports_->Flush());
  if (decisions_) TUNER_RETURN_IF_ERROR(decisions_->Flush());
  TUNER_RETURN_IF_ERROR(FlushLastValues());
  return board_ ? board_->Flush() : core::Status::Ok();
}

void TrialStore::ForgetRows() {
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
    auto contender = PlaceOnBoard(trial, /*replaces_time=*/true, last.time,
                                  last.value, last.mode);
    if (!contender.ok()) return contender.status();
    Statement& update = statements_->update_last;
    update.Bind(1, trial)
        .Bind(2, last.time)
        .Bind(3, last.value)
        .Bind(4, core::ToString(last.mode))
        .Bind(5, last.best);
    BindContender(update, 6, contender.value());
    TUNER_RETURN_IF_ERROR(AfterPlaced(trial, update.Run()));
  }
  pending_last_.clear();
  return core::Status::Ok();
}

}  // namespace tuner::storage
