// CheckpointWatch: what a sweep does with its trials' checkpoints: a pause
// held until its rung's checkpoint is in, times snapped to the rungs, and
// keep_best over the ended trials (CheckpointKeeper).
#ifndef TUNER_TUNER_SWEEP_CHECKPOINT_WATCH_H_
#define TUNER_TUNER_SWEEP_CHECKPOINT_WATCH_H_

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/trial.h"
#include "tuner/base/clock.h"
#include "tuner/config/experiment_config.h"
#include "tuner/sweep/checkpoint_keeper.h"

namespace tuner {

// Holds each pausing trial's stop until a checkpoint of its rung is
// complete in its output folder (checkpoints.pattern), or checkpoints.wait
// has passed: it reads the folders every checkpoints.poll on the sweep's
// clock while a pause waits, and is idle otherwise. It knows trials only
// by id; the sweep says the scheduler's rungs and stops the trials.
// Not thread-safe: everything runs on the sweep's event loop.
class CheckpointWatch {
 public:
  struct Sweep {
    // The scheduler's rung milestones now (TrialScheduler::Milestones).
    std::function<std::vector<double>()> milestones;
    // The trial's checkpoint is in, or its wait ran out: stop its attempt
    // (it pauses at its exit). The watch holds its pause no more.
    std::function<void(core::TrialId trial)> stop;
    // Runs `poll` as an entry point of the sweep's loop (the timer fired):
    // the sweep contains what it throws.
    std::function<void(const std::function<void()>& poll)> enter;
  };
  // `config` and `clock` outlive the watch.
  CheckpointWatch(const ExperimentConfig& config, Clock& clock,
                  CheckpointKeeper keeper, Sweep sweep);
  CheckpointWatch(const CheckpointWatch&) = delete;
  CheckpointWatch& operator=(const CheckpointWatch&) = delete;

  // `time` as the rung or max_t it is within 0.01 of (1% of a mark below
  // one unit), else `time` itself: the rounding of a Trainer's epoch at a
  // boundary, never a whole step or epoch.
  double SnapToRung(double time) const;
  // `trial` pauses at `rung`, its checkpoints in `output_dir`: stops it at
  // once if the rung's checkpoint is in, else holds the pause (read again
  // every checkpoints.poll; never, without an output folder) until it is
  // or checkpoints.wait has passed.
  void PauseAt(core::TrialId trial, const std::string& output_dir, double rung);
  // The trial's attempt exited: its pause, if held, is over.
  void Exited(core::TrialId trial);
  // The sweep left its trials: no more polls (a pause held stays held).
  void StopPolling();
  // keep_best: a trial ended with `status`; its checkpoints are in
  // `output_dir`.
  void TrialEnded(core::TrialStatus status, std::optional<double> last_value,
                  const std::string& output_dir);

 private:
  struct Pause {
    std::string output_dir;
    double rung = 0;
    Clock::TimePoint deadline;
  };
  // Whether the poll is scheduled on the clock.
  enum class PollTimer { kIdle, kArmed };

  // Schedules the next poll, if idle and a held pause has a folder to read.
  void Arm();
  void Poll();
  // Stops the trial if its checkpoint is in or its wait ran out.
  void Check(core::TrialId trial);

  const ExperimentConfig& config_;
  Clock& clock_;
  CheckpointKeeper keeper_;
  Sweep sweep_;
  std::unique_ptr<Clock::Timer> timer_;
  PollTimer poll_timer_ = PollTimer::kIdle;
  std::map<core::TrialId, Pause> pauses_;  // held, by trial
};

}  // namespace tuner

#endif  // TUNER_TUNER_SWEEP_CHECKPOINT_WATCH_H_
