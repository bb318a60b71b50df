// Sweep::Resume: taking up an experiment a previous tuner left unfinished
// (killed, or stopped with --detach).
#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>

#include "trial_runner/device_parsers.h"
#include "tuner/launch_spec.h"
#include "tuner/sweep.h"
#include "tuner/sweep_live_trial.h"

namespace tuner {

namespace {

std::string RungReason(const core::RungDecision& d) {
  return std::string(d.verdict == core::RungVerdict::kPause ? "paused at rung "
                                                            : "rung ") +
         core::FormatDouble(d.milestone) + ": rank " + std::to_string(d.rank) +
         " of " + std::to_string(d.n);
}

}  // namespace

void Sweep::RestoreScheduler(const std::vector<storage::TrialRecord>& rows) {
  std::vector<const storage::TrialRecord*> by_index;
  std::unordered_map<core::TrialId, const storage::TrialRecord*> by_id;
  for (const auto& row : rows) by_index.push_back(&row), by_id[row.id] = &row;
  std::sort(by_index.begin(), by_index.end(),
            [](auto* a, auto* b) { return a->index < b->index; });
  for (const auto* row : by_index) scheduler_->OnAdd(row->id, row->index);
  auto decisions = store_.ListDecisions(experiment_);
  if (!Check(decisions.status())) return;
  for (const auto& d : decisions.value()) {
    scheduler_->Restore(d.trial, d.decision);
    const auto* row = by_id[d.trial];
    if (row && d.decision.verdict != core::RungVerdict::kPromote) {
      searcher_->Observe(row->index, row->params, d.decision.milestone,
                         d.decision.value);
    }
    last_decision_[d.trial] = d.decision;
  }
  for (const auto& row : rows) {
    bool ended = row.status == core::TrialStatus::kCompleted ||
                 row.status == core::TrialStatus::kStopped ||
                 row.status == core::TrialStatus::kFailed;
    if (!ended) continue;
    scheduler_->OnEnd(row.id);
    if (row.status == core::TrialStatus::kCompleted && row.last_time &&
        row.last_value) {
      searcher_->Observe(row.index, row.params, *row.last_time,
                         *row.last_value);
    }
  }
}

std::unique_ptr<Sweep::LiveTrial> Sweep::Rebuild(
    const storage::TrialRecord& row) {
  auto trial = std::make_unique<LiveTrial>();
  trial->id = row.id;
  trial->index = row.index;
  trial->params = row.params;
  trial->attempt = static_cast<int>(row.attempts);
  auto reports = store_.ListReports(row.id);
  if (Check(reports.status())) {
    for (const auto& r : reports.value()) {
      trial->seq = std::max(trial->seq, r.seq);
      if (!r.time || !r.value) continue;
      if (trial->last_time && *r.time <= *trial->last_time) continue;
      ++trial->judged;
      trial->last_time = r.time;
      trial->last_value = r.value;
    }
  }
  if (auto it = last_decision_.find(row.id); it != last_decision_.end()) {
    const core::RungDecision& d = it->second;
    if (d.verdict == core::RungVerdict::kStop ||
        d.verdict == core::RungVerdict::kPause) {
      trial->verdict = d.verdict == core::RungVerdict::kStop
                           ? core::Action::kStop
                           : core::Action::kPause;
      trial->stop_time = d.milestone;
      trial->reason = RungReason(d);
    }
  }
  if (row.status == core::TrialStatus::kPaused) trial->reason = row.reason;
  trial->output_dir = OutputDir(*trial);
  return trial;
}

runner::TrialLaunch Sweep::AdoptionLaunch(const LiveTrial& trial) const {
  std::string dir = TrialDir(trial.id);
  runner::TrialLaunch launch;
  launch.trial = trial.id;
  launch.spawn.stdout_path = dir + "/stdout.log";
  launch.spawn.stderr_path = dir + "/stderr.log";
  launch.status_path = dir + "/status.json";
  launch.metrics = MetricFormatFor(config_);
  return launch;
}

void Sweep::Readopt(LiveTrial& trial, const storage::TrialRecord& row) {
  runner::Adoption adoption;
  adoption.trial = trial.id;
  adoption.launch = AdoptionLaunch(trial);
  bool alive = row.shim_pid && row.shim_start &&
               runner::ProcessStartTime(static_cast<pid_t>(*row.shim_pid)) ==
                   row.shim_start;
  adoption.shim_pid = alive ? static_cast<pid_t>(*row.shim_pid)
                            : runner::FindShim(adoption.launch.status_path);
  auto offset = store_.LastOffset(trial.id, trial.attempt);
  if (offset.ok() && offset.value()) {
    adoption.stdout_offset = std::max<int64_t>(0, *offset.value());
  }
  auto held = store_.HeldLease(trial.id);
  if (runner_.Adopt(adoption).ok()) {
    if (held.ok() && held.value()) {
      auto ids = runner::ParseCpuList(held.value()->devices);
      if (ids.ok()) trial.lease = pool_.Adopt(ids.value());
      trial.lease_row = held.value()->id;
    }
    ++counts_.running;
    spdlog::info("trial {}: adopted (shim {})", trial.id, adoption.shim_pid);
    if (trial.verdict != core::Action::kContinue) runner_.Stop(trial.id);
    return;
  }
  if (held.ok() && held.value()) Check(store_.CloseLease(held.value()->id));
  core::TrialId id = trial.id;
  if (trial.verdict == core::Action::kStop) {
    Finish(trial, core::TrialStatus::kStopped, trial.reason);
    live_.erase(id);
    return;
  }
  spdlog::warn("trial {}: gone without an exit status; relaunching it", id);
  Relaunch(trial);
}

core::Status Sweep::Resume(const storage::ExperimentRecord& experiment) {
  experiment_ = experiment.id;
  auto rows = store_.ListTrials(experiment_);
  if (!rows.ok()) return rows.status();
  RestoreScheduler(rows.value());
  next_index_ = static_cast<int64_t>(rows.value().size());
  counts_.started = next_index_;
  for (const auto& row : rows.value()) {
    switch (row.status) {
      case core::TrialStatus::kCompleted:
        ++counts_.completed;
        break;
      case core::TrialStatus::kStopped:
        ++counts_.stopped;
        break;
      case core::TrialStatus::kFailed:
        ++counts_.failed;
        break;
      case core::TrialStatus::kPaused:
        ++counts_.paused;
        paused_.emplace(row.id, Rebuild(row));
        break;
      case core::TrialStatus::kRunning:
      case core::TrialStatus::kPending: {
        auto trial = Rebuild(row);
        LiveTrial& ref = *trial;
        live_.emplace(row.id, std::move(trial));
        if (row.status == core::TrialStatus::kRunning) {
          Readopt(ref, row);
        } else {
          StartOrQueue(ref);
        }
        break;
      }
    }
  }
  TUNER_RETURN_IF_ERROR(store_.SetExperimentStatus(experiment_, "running"));
  TUNER_RETURN_IF_ERROR(store_.Commit());
  FillSlots();
  CheckDone();
  return core::Status::Ok();
}

}  // namespace tuner
