// What TrialTable's writer keeps between statements: each trial's newest
// values until the batch writes them, and its place on the leaderboard
// (the rest: trial_table.cc).
#include <cmath>

#include "storage/trial_row.h"
#include "storage/trial_table.h"

namespace tuner::storage {

void TrialTable::NoteLastValue(core::TrialId trial, double time, double value,
                               core::Mode mode) {
  PendingLast& last = pending_last_[trial];
  last.time = time;
  last.value = value;
  last.mode = mode;
  if (!last.best || core::Better(value, *last.best, mode)) last.best = value;
}

core::Status TrialTable::Flush() {
  TUNER_RETURN_IF_ERROR(WriteAdded());
  if (params_) TUNER_RETURN_IF_ERROR(params_->Flush());
  TUNER_RETURN_IF_ERROR(FlushLastValues());
  return board_ ? board_->Flush() : core::Status::Ok();
}

core::Status TrialTable::FlushCounts() {
  return counts_ ? counts_->Flush() : core::Status::Ok();
}

void TrialTable::Forget() {
  added_.clear();
  next_id_.reset();
  if (trial_rows_) trial_rows_->Discard();
  pending_last_.clear();
  if (params_) params_->Discard();
  if (counts_) counts_->Discard();
  if (board_) board_->Discard();
  ranks_.clear();
}

size_t TrialTable::KnownTrials() const {
  return ranks_.size() + (counts_ ? counts_->KnownTrials() : 0);
}

core::Status TrialTable::Dropped(ExperimentId experiment) {
  board_->Drop(experiment);
  ranks_.clear();
  return counts_->Drop(experiment);
}

core::Result<TrialTable::RankState*> TrialTable::RankOf(core::TrialId trial) {
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

core::Result<std::optional<bool>> TrialTable::PlaceOnBoard(
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

core::Status TrialTable::AfterPlaced(core::TrialId trial,
                                     const core::Status& written) {
  if (!board_) return written;
  if (written.ok()) return board_->Settle();
  board_->Abandon();
  ranks_.erase(trial);  // its rank is the row's again: read it anew
  return written;
}

void TrialTable::BindContender(Statement& stmt, int index,
                               std::optional<bool> contender) {
  if (!boards_) return;
  if (contender) {
    stmt.Bind(index, static_cast<int64_t>(*contender));
  } else {
    stmt.BindNull(index);
  }
}

core::Status TrialTable::FlushLastValues() {
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
