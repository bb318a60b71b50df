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
  bool srun_exited = false;
  std::optional<int64_t> step_id;  // once squeue listed it
  bool listed = false;             // squeue listed it at least once
  int missing = 0;      // polls without it, once it cannot appear any more
  bool ending = false;  // ended without a status: waiting for sinfo
  std::optional<TrialExit> held_exit;  // until squeue tells who sent it
  LineReader stdout_reader;
  MetricStream metrics;
  boost::asio::steady_timer stop_timer;
  bool stop_requested = false, stop_sent = false;
  bool kill_requested = false, kill_sent = false;
};

}  // namespace tuner::runner

#endif  // TUNER_TRIAL_RUNNER_SLURM_SLURM_STEP_H_
