#include "trial_runner/processes/trainer_state_runner.h"

#include <vector>

#include "trial_runner/output/trainer_state.h"

namespace tuner::runner {

TrainerStateRunner::TrainerStateRunner(boost::asio::io_context& io,
                                       RunnerObserver& observer,
                                       std::chrono::milliseconds poll,
                                       const MakeRunner& make_runner)
    : observer_(observer),
      poll_(poll),
      timer_(io),
      inner_(make_runner(*this)) {}

core::Status TrainerStateRunner::Start(const TrialLaunch& launch) {
  Follow(launch.trial, launch.trainer_state);
  core::Status started = inner_->Start(launch);
  if (!started.ok()) followed_.erase(launch.trial);
  return started;
}

core::Status TrainerStateRunner::Adopt(const Adoption& adoption) {
  std::optional<TrainerStateSource> source = adoption.launch.trainer_state;
  if (source) source->skip = 0;
  Follow(adoption.trial, source);
  core::Status adopted = inner_->Adopt(adoption);
  if (!adopted.ok()) followed_.erase(adoption.trial);
  return adopted;
}

void TrainerStateRunner::Follow(
    core::TrialId trial, const std::optional<TrainerStateSource>& source) {
  if (!source || source->dir.empty()) return;
  followed_[trial] = Followed{*source, source->skip};
  ArmPoll();
}

void TrainerStateRunner::Detach() {
  followed_.clear();
  timer_.cancel();
  armed_ = false;
  inner_->Detach();
}

void TrainerStateRunner::OnExit(core::TrialId trial, const TrialExit& exit) {
  if (followed_.count(trial)) Feed(trial);
  followed_.erase(trial);
  observer_.OnExit(trial, exit);
}

void TrainerStateRunner::Feed(core::TrialId trial) {
  auto it = followed_.find(trial);
  if (it == followed_.end()) return;
  auto saved =
      ScanCheckpoints(it->second.source.dir, it->second.source.pattern);
  if (saved.empty()) return;
  std::vector<core::Metrics> history = std::move(saved.back().log_history);
  for (size_t i = it->second.fed; i < history.size(); ++i) {
    // The observer may stop the trial (or detach) from inside.
    auto still = followed_.find(trial);
    if (still == followed_.end()) return;
    still->second.fed = i + 1;
    observer_.OnMetrics(trial, std::move(history[i]), -1);
  }
}

void TrainerStateRunner::ArmPoll() {
  if (armed_ || followed_.empty()) return;
  armed_ = true;
  timer_.expires_after(poll_);
  timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec) return;
    armed_ = false;
    std::vector<core::TrialId> trials;
    for (const auto& [trial, followed] : followed_) trials.push_back(trial);
    for (core::TrialId trial : trials) Feed(trial);
    ArmPoll();
  });
}

}  // namespace tuner::runner
