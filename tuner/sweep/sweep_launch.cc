// The parts of Sweep that put trials on devices: the launch (a lease from
// DeviceSeats; its folder, env and command from LaunchPlanner), the trials
// that wait for a device, and preemption.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>

#include "trial_runner/devices/device_parsers.h"
#include "tuner/sweep/sweep.h"
#include "tuner/sweep/sweep_live_trial.h"

namespace tuner {

void Sweep::StartOrQueue(LiveTrial& trial) {
  LaunchResult result = Launch(trial);
  if (result == LaunchResult::kNoDevice) waiting_.push_back(trial.id);
  if (result != LaunchResult::kFailed) return;
  core::TrialId failed = trial.id;
  scheduler_->OnEnd(failed);
  Finish(trial, core::TrialStatus::kFailed, trial.reason);
  live_.erase(failed);
}

bool Sweep::LaunchWaiting() {
  auto it = live_.find(waiting_.front());
  if (it == live_.end()) {
    waiting_.pop_front();
    return true;
  }
  LiveTrial& trial = *it->second;
  LaunchResult result = Launch(trial);
  if (result == LaunchResult::kNoDevice) return false;
  waiting_.pop_front();
  if (result == LaunchResult::kFailed) {
    scheduler_->OnEnd(trial.id);
    Finish(trial, core::TrialStatus::kFailed, trial.reason);
    live_.erase(it);
  }
  return true;
}

void Sweep::EndWaiting() {
  for (core::TrialId id : waiting_) {
    auto it = live_.find(id);
    if (it == live_.end()) continue;
    if (it->second->life.Undecided()) scheduler_->OnEnd(id);
    Finish(*it->second, core::TrialStatus::kPending,  // resume runs it
           "interrupted while waiting for a device");
    live_.erase(it);
  }
  waiting_.clear();
  seats_.StopWaiting();
}

bool Sweep::Yield(const std::vector<int>& ids) {
  if (!Running()) return false;
  LiveTrial* victim = nullptr;
  for (auto& [id, trial] : live_) {
    if (!trial->lease || trial->life.phase() != TrialPhase::kRunning) continue;
    bool overlaps = ids.empty();
    for (int device : trial->lease->ids()) {
      overlaps |= std::find(ids.begin(), ids.end(), device) != ids.end();
    }
    if (!overlaps) continue;
    // The trial that got least far (then the newest) loses least.
    auto progress = [](const LiveTrial& t) {
      return std::make_pair(t.last_time.value_or(-1.0), -t.id);
    };
    if (!victim || progress(*trial) < progress(*victim)) victim = trial.get();
  }
  if (!victim) return false;
  victim->life.Preempt();
  spdlog::info("trial {} preempted for an experiment of higher priority",
               victim->id);
  runner_->Stop(victim->id);
  return true;
}

int Sweep::HeldDevices() const {
  int held = 0;
  for (const auto& [id, trial] : live_) {
    if (trial->lease) held += static_cast<int>(trial->lease->devices.size());
  }
  return held;
}

Sweep::LaunchResult Sweep::Launch(LiveTrial& trial) {
  auto lease = seats_.Take(&trial.reason);
  if (!lease) return LaunchResult::kNoDevice;
  trial.lease = std::move(*lease);
  auto planned = planner_.Plan({trial.id, &trial.params, trial.attempt},
                               *trial.lease, pool_.groups());
  core::Status started = planned.status();
  if (started.ok()) {
    trial.ports = planned.value().ports;
    trial.output_dir = planned.value().output_dir;
    trial.resumed_from = planned.value().resumed_from;
    started = RecordLaunch(trial);
  }
  if (started.ok()) {
    // Launched before it starts: the runner may hand over its first
    // reports inside Start() (a trial that printed them at once).
    ++trial.attempt;
    trial.life.Launched(AttemptOrigin::kThisTuner);
    started = runner_->Start(planned.value().launch);
    if (!started.ok()) {
      --trial.attempt;
      trial.life.Requeue();
    }
  }
  if (!started.ok()) {
    ReleaseDevices(trial);
    trial.reason = started.message();
    return LaunchResult::kFailed;
  }
  ++counts_.running;
  seats_.Started();
  RecordShim(trial);
  progress_.TrialStarted(EventOf(trial), counts_);
  return LaunchResult::kStarted;
}

core::Status Sweep::RecordLaunch(LiveTrial& trial) {
  runner::DeviceLease& lease = *trial.lease;
  int attempt = trial.attempt + 1;
  lease.Label(fmt::format("pid={} experiment={} trial={} attempt={}", getpid(),
                          config_.name, trial.id, attempt));
  storage::LeaseRecord record;
  record.trial = trial.id;
  record.attempt = attempt;
  record.kind = runner::ToString(lease.kind);
  record.devices = fmt::format("{}", fmt::join(lease.ids(), ","));
  record.cpus = runner::FormatCpuList(lease.cpus);
  record.node = lease.node;
  auto row = journal_.Launched(record);
  if (!row) return core::Internal(error_);
  trial.lease_row = *row;
  return core::Status::Ok();
}

void Sweep::RecordShim(const LiveTrial& trial) {
  pid_t shim = runner_->ShimPid(trial.id);
  auto supervisor = runner_->Supervisor(trial.id);
  std::optional<int64_t> start;
  if (supervisor) start = supervisor->start;
  // Not committed at once: a tuner that dies before the next commit finds
  // the shim by its command line instead.
  journal_.SetShim(
      trial.id, shim > 0 ? std::optional<int64_t>(shim) : std::nullopt, start);
}

void Sweep::ReleaseDevices(LiveTrial& trial, std::chrono::milliseconds rest) {
  planner_.ReleasePorts(trial.ports);
  trial.ports.clear();
  if (trial.lease_row != 0) journal_.CloseLease(trial.lease_row);
  trial.lease_row = 0;
  seats_.Give(std::move(trial.lease), rest);
  trial.lease.reset();
}

}  // namespace tuner
