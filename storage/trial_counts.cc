#include "storage/trial_counts.h"

#include <algorithm>
#include <vector>

namespace tuner::storage {

core::Result<TrialCounts> TrialCounts::Prepare(Database& db) {
  auto drop = db.Prepare("DELETE FROM trial_counts WHERE experiment_id = ?1");
  if (!drop.ok()) return drop.error();
  TrialCounts counts(db, std::move(drop).value());
  auto add = counts.AddOf(1);
  if (!add.ok()) return add.error();
  return counts;
}

core::Result<Statement*> TrialCounts::AddOf(int rows) {
  auto found = adds_.find(rows);
  if (found != adds_.end()) return &found->second;
  std::string sql =
      "INSERT INTO trial_counts (experiment_id, status, n) VALUES ";
  for (int row = 0; row < rows; ++row) {
    int first = 3 * row + 1;
    sql += (row == 0 ? "(?" : ", (?") + std::to_string(first) + ", ?" +
           std::to_string(first + 1) + ", ?" + std::to_string(first + 2) + ")";
  }
  sql +=
      " ON CONFLICT (experiment_id, status) DO UPDATE SET n = n + excluded.n";
  auto stmt = db_->Prepare(sql);
  if (!stmt.ok()) return stmt.error();
  return &adds_.emplace(rows, std::move(stmt).value()).first->second;
}

void TrialCounts::Move(core::TrialId trial, ExperimentId experiment,
                       const std::optional<std::string>& from,
                       const std::string& to) {
  moved_[trial] = {experiment, to};
  if (from == to) return;
  if (!from) ++changes_[{experiment, kAll}];
  if (from && *from != kDerived) --changes_[{experiment, *from}];
  if (to != kDerived) ++changes_[{experiment, to}];
}

std::optional<TrialCounts::TrialState> TrialCounts::Moved(
    core::TrialId trial) const {
  auto it = moved_.find(trial);
  if (it == moved_.end()) return std::nullopt;
  return it->second;
}

void TrialCounts::Discard() {
  changes_.clear();
  moved_.clear();
}

core::Status TrialCounts::Flush() {
  std::vector<std::pair<const Key*, int64_t>> rows;
  for (const auto& [key, change] : changes_) {
    if (change != 0) rows.emplace_back(&key, change);
  }
  core::Status status = core::Status::Ok();
  for (size_t first = 0; status.ok() && first < rows.size();
       first += kRowsPerUpsert) {
    size_t count = std::min(rows.size() - first, kRowsPerUpsert);
    auto add = AddOf(static_cast<int>(count));
    if (!add.ok()) return add.status();
    Statement& stmt = *add.value();
    for (size_t i = 0; i < count; ++i) {
      int index = static_cast<int>(3 * i + 1);
      const auto& [key, change] = rows[first + i];
      stmt.Bind(index, key->first).Bind(index + 1, key->second);
      stmt.Bind(index + 2, change);
    }
    status = stmt.Run();
  }
  changes_.clear();
  return status;
}

core::Status TrialCounts::Drop(ExperimentId experiment) {
  for (auto it = changes_.begin(); it != changes_.end();) {
    it = it->first.first == experiment ? changes_.erase(it) : std::next(it);
  }
  for (auto it = moved_.begin(); it != moved_.end();) {
    it = it->second.first == experiment ? moved_.erase(it) : std::next(it);
  }
  return drop_.Bind(1, experiment).Run();
}

}  // namespace tuner::storage
