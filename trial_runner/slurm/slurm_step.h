// The state SlurmRunner keeps for one running step; shared by
// slurm_runner.cc (launch, poll, stop) and slurm_runner_ends.cc (how a step
// ended without its shim's status). Private to the runner.
#ifndef TUNER_TRIAL_RUNNER_SLURM_SLURM_STEP_H_
#define TUNER_TRIAL_RUNNER_SLURM_SLURM_STEP_H_

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <optional>
#include <string>

#include "trial_runner/output/line_reader.h"
#include "trial_runner/output/metric_parser.h"
#include "trial_runner/output/metric_stream.h"
#include "trial_runner/slurm/slurm_runner.h"

namespace tuner::runner {

// Where a step stands as seen from here. kSubmitted: its srun runs and
// squeue has not listed it yet. kListed: squeue listed it (or an adoption
// found its shim). kUnlisted: its srun exited (or an adoption found none)
// before squeue listed it: it can no longer appear. In kListed and kUnlisted
// each poll that does not list it counts as missing; enough of them make it
// kEnding (it ended without a status: sinfo on its node says why), and an
// end not of our asking (a SIGTERM we did not send, a cancel, a lost step)
// makes it kHeld until squeue on the whole job says whether the allocation
// ended. kSubmitted -> kListed | kUnlisted; kUnlisted -> kListed;
// kListed | kUnlisted -> kEnding; kSubmitted | kListed | kUnlisted | kEnding
// -> kHeld. A step leaves the runner when its end is delivered.
enum class StepPhase { kSubmitted, kListed, kUnlisted, kEnding, kHeld };

// What the tuner asked of a step and whether scancel carried it out yet; a
// kill supersedes a stop. A request waits for the step's id (squeue).
enum class Halt { kNone, kStopWanted, kStopSent, kKillWanted, kKillSent };

struct SlurmRunner::Step {
  Step(boost::asio::io_context& io, const TrialLaunch& l)
      : trial(l.trial),
        launch(l),
        name(StepName(l.status_path)),
        node(l.node),
        stdout_reader(l.spawn.stdout_path, kMaxMetricLineBytes),
        metrics(l.metrics),
        stop_timer(io) {}

  core::TrialId trial;
  TrialLaunch launch;
  std::string name;  // StepName(status path)
  std::string node;
  pid_t srun = -1;  // the srun this runner started; -1: adopted
  StepPhase phase = StepPhase::kSubmitted;
  std::optional<int64_t> step_id;  // once squeue listed it
  int missing = 0;                 // polls without it, in kListed and kUnlisted
  std::optional<TrialExit> held_exit;  // in kHeld: the end to deliver
  LineReader stdout_reader;
  MetricStream metrics;
  boost::asio::steady_timer stop_timer;
  Halt halt = Halt::kNone;

  // Whether its end is of the tuner's asking.
  bool Requested() const { return halt != Halt::kNone; }
  // Holds `exit` for squeue on the job to judge.
  void Hold(const TrialExit& exit) {
    phase = StepPhase::kHeld;
    held_exit = exit;
  }
};

}  // namespace tuner::runner

#endif  // TUNER_TRIAL_RUNNER_SLURM_SLURM_STEP_H_
