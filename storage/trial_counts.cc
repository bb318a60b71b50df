#include "storage/trial_counts.h"

namespace tuner::storage {

core::Result<TrialCounts> TrialCounts::Prepare(Database& db) {
  auto add = db.Prepare(
      "INSERT INTO trial_counts (experiment_id, status, n) VALUES (?1, ?2, "
      "?3) ON CONFLICT (experiment_id, status) DO UPDATE SET n = n + ?3");
  if (!add.ok()) return add.error();
  auto drop = db.Prepare("DELETE FROM trial_counts WHERE experiment_id = ?1");
  if (!drop.ok()) return drop.error();
  return TrialCounts(std::move(add).value(), std::move(drop).value());
}

void TrialCounts::Move(core::TrialId trial, ExperimentId experiment,
                       const std::optional<std::string>& from,
                       const std::string& to) {
  moved_[trial] = {experiment, to};
  if (from == to) return;
  if (from) --changes_[{experiment, *from}];
  ++changes_[{experiment, to}];
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
  for (const auto& [key, change] : changes_) {
    if (change == 0) continue;
    TUNER_RETURN_IF_ERROR(
        add_.Bind(1, key.first).Bind(2, key.second).Bind(3, change).Run());
  }
  changes_.clear();
  return core::Status::Ok();
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
