#include "tuner/sim/sim_runner.h"

#include <boost/asio/post.hpp>
#include <vector>

namespace tuner::sim {

namespace {

std::chrono::steady_clock::duration Seconds(double seconds) {
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(seconds));
}

}  // namespace

SimRunner::SimRunner(boost::asio::io_context& io,
                     runner::RunnerObserver& observer, Clock& clock,
                     RowFor row_for)
    : io_(io),
      observer_(observer),
      clock_(clock),
      row_for_(std::move(row_for)) {}

SimRunner::~SimRunner() { *alive_ = false; }

core::Status SimRunner::Start(const runner::TrialLaunch& launch) {
  if (running_.count(launch.trial)) {
    return core::Internal("trial " + std::to_string(launch.trial) +
                          " is running already");
  }
  auto row = row_for_(launch.trial);
  if (!row.ok()) return row.error();
  Attempt& attempt = running_[launch.trial];
  attempt.row = row.value();
  attempt.started = clock_.Now();
  attempt.step_timer = clock_.MakeTimer();
  attempt.stop_timer = clock_.MakeTimer();
  attempt.next = reached_[launch.trial];
  ScheduleStep(launch.trial, attempt);
  return core::Status::Ok();
}

core::Status SimRunner::Adopt(const runner::Adoption& adoption) {
  return core::Internal("trial " + std::to_string(adoption.trial) +
                        ": a simulated trial cannot be adopted");
}

void SimRunner::ScheduleStep(core::TrialId trial, Attempt& attempt) {
  const auto& steps = attempt.row->steps;
  if (attempt.next >= steps.size()) {  // resumed past its end: ends again
    runner::TrialExit exit;
    exit.exit_code = attempt.row->diverged ? 1 : 0;
    End(trial, exit);
    return;
  }
  attempt.step_timer->Schedule(Seconds(steps[attempt.next].seconds),
                               [this, trial] { Deliver(trial); });
}

void SimRunner::Deliver(core::TrialId trial) {
  auto it = running_.find(trial);
  if (it == running_.end() || it->second.ending) return;
  Attempt& attempt = it->second;
  size_t step = attempt.next++;
  reached_[trial] = attempt.next;
  // May stop the trial (or, through the sweep, others).
  observer_.OnMetrics(trial, attempt.row->steps[step].metrics,
                      static_cast<int64_t>(attempt.next));
  it = running_.find(trial);
  if (it == running_.end() || it->second.ending) return;
  if (it->second.next == it->second.row->steps.size()) {
    if (it->second.row->truncated) ++truncated_ends_;
    runner::TrialExit exit;
    exit.exit_code = it->second.row->diverged ? 1 : 0;
    End(trial, exit);
    return;
  }
  ScheduleStep(trial, it->second);
}

void SimRunner::End(core::TrialId trial, runner::TrialExit exit) {
  Attempt& attempt = running_.at(trial);
  attempt.ending = true;
  attempt.step_timer->Cancel();
  attempt.stop_timer->Cancel();
  boost::asio::post(io_, [this, alive = alive_, trial, exit] {
    if (!*alive) return;
    auto it = running_.find(trial);
    if (it == running_.end()) return;  // detached meanwhile
    device_seconds_ +=
        std::chrono::duration<double>(clock_.Now() - it->second.started)
            .count();
    running_.erase(it);
    observer_.OnExit(trial, exit);
  });
}

void SimRunner::Stop(core::TrialId trial) {
  auto it = running_.find(trial);
  if (it == running_.end() || it->second.ending) return;
  runner::TrialExit exit;
  exit.signal = 15;
  exit.stop_requested = true;
  End(trial, exit);
}

void SimRunner::StopAfter(core::TrialId trial,
                          std::chrono::milliseconds delay) {
  auto it = running_.find(trial);
  if (it == running_.end() || it->second.ending) return;
  it->second.stop_timer->Schedule(delay, [this, trial] { Stop(trial); });
}

void SimRunner::KillAll() {
  std::vector<core::TrialId> trials;
  for (const auto& [id, attempt] : running_) {
    if (!attempt.ending) trials.push_back(id);
  }
  for (core::TrialId trial : trials) {
    runner::TrialExit exit;
    exit.signal = 9;
    exit.stop_requested = true;
    End(trial, exit);
  }
}

void SimRunner::Detach() { running_.clear(); }

}  // namespace tuner::sim
