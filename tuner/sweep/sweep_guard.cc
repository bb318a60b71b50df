// The parts of Sweep that contain exceptions: one thrown inside an
// experiment fails that experiment (its reason stored), never the process
// or the other experiments on the same io_context.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "tuner/sweep/sweep.h"
#include "tuner/sweep/sweep_live_trial.h"

namespace tuner {

void Sweep::Guarded(const char* where, const std::function<void()>& body) {
  std::string reason;
  try {
    body();
    return;
  } catch (const std::exception& e) {
    reason = fmt::format("internal error in {}: {}", where, e.what());
  } catch (...) {
    reason = fmt::format("internal error in {}: an unknown exception", where);
  }
  Fault(reason);
}

void Sweep::Fault(const std::string& reason) {
  spdlog::error("experiment '{}' fails: {}", config_.name, reason);
  if (error_.empty()) error_ = reason;
  if (Ended()) return;
  if (phase_ != SweepPhase::kFaulted) {
    phase_ = SweepPhase::kFaulted;
    try {
      InterruptUnguarded(false);  // ends it once its trials have exited
      return;
    } catch (...) {
    }
  }
  // It threw again: its state cannot be trusted to stop its trials in
  // order. Kill them and end it now.
  try {
    runner_->KillAll();
  } catch (...) {
  }
  std::string why = "the experiment failed: " + error_;
  auto fail = [&](const LiveTrial& trial) {
    try {
      (void)journal_.FinishTrial(
          trial.id, {core::TrialStatus::kFailed, trial.exit_code, why, {}});
    } catch (...) {
    }
  };
  for (auto& [id, trial] : live_) fail(*trial);
  live_.clear();
  for (const auto& trial : promotions_.TakeAll()) fail(*trial);
  waiting_.clear();
  try {
    CheckDone();
  } catch (...) {
  }
  if (!Ended()) {
    phase_ = SweepPhase::kFailed;
    if (options_.on_finished) options_.on_finished();
  }
}

}  // namespace tuner
