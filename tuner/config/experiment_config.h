// ExperimentConfig: one experiment, as its YAML file describes it.
#ifndef TUNER_TUNER_CONFIG_EXPERIMENT_CONFIG_H_
#define TUNER_TUNER_CONFIG_EXPERIMENT_CONFIG_H_

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/scheduler_spec.h"
#include "core/search_space.h"

namespace tuner {

struct TrialPolicy {
  std::chrono::milliseconds timeout{0};  // wall clock per attempt; 0 = none
  int max_failures = 0;                  // retries of a trial that crashed
  std::chrono::milliseconds stop_grace{10000};  // SIGTERM → SIGKILL
  std::chrono::milliseconds idle_timeout{0};    // no output; 0 = none
  int64_t log_cap = 100 << 20;  // bytes per log before only metric lines
  // A trial whose tuner is gone this long is stopped by its shim.
  std::chrono::milliseconds orphan_timeout{600000};
  // The sweep fails once its first `fail_fast` ended trials all failed for
  // one reason (a broken command or environment); 0: never.
  int fail_fast = 3;
};

// Which devices trials run on (docs/devices.md).
struct DevicesSpec {
  std::string kind = "auto";  // auto | habana | neuron | cuda | cpu
  int per_trial = 0;          // devices per trial; 0: 1, or for cpu from slots
  int slots = 0;              // cpu: concurrent trials; 0: one per CPU
  std::vector<int> ids;       // restrict the pool; empty: every device
  std::string launcher = "process";         // process | docker (habana)
  std::string image;                        // docker: the image
  std::vector<std::string> docker_options;  // docker: extra `run` flags
  std::string recipe_cache;  // habana: shared PT_HPU_RECIPE_CACHE_CONFIG dir
  int recipe_cache_mb = 10240;
  int64_t busy_memory_mib = 2048;  // habana: a card using more is busy
  bool pin_cpus = true;            // give each trial its own share of the CPUs
};

// Where a trial's script saves checkpoints, and how to resume one
// (docs/trainer.md). An empty `dir` means the tuner knows of none.
struct CheckpointSpec {
  std::string dir;  // templated: "{trial_dir}/output"
  std::string pattern = "checkpoint-*/trainer_state.json";
  std::string resume = "--resume_from_checkpoint {checkpoint}";
  int keep_best = -1;  // stopped trials whose checkpoints stay; -1: all
  std::chrono::milliseconds wait{600000};  // for the rung's checkpoint
  std::chrono::milliseconds poll{200};     // how often the dir is read
};

// Where trials run: this machine, or Slurm job steps (docs/slurm.md).
struct ClusterSpec {
  std::string kind = "local";  // local | slurm
  // The allocation to run in; "": $SLURM_JOB_ID when the tuner runs inside
  // one, else the tuner books one (salloc --no-shell) and releases it.
  std::string job;
  int nodes = 1;          // nodes to book
  std::string partition;  // --partition; "": the cluster's default
  std::string account;    // --account
  std::string time;       // --time of a booked allocation; "": default
  bool exclusive = true;  // --exclusive: whole nodes
  std::vector<std::string> salloc_args;  // more salloc arguments
  std::vector<std::string> srun_args;    // more srun arguments per step
  std::chrono::milliseconds poll{1000};  // squeue and output files
};

struct ExperimentConfig {
  std::string name;
  std::string command;  // the template, placeholders unexpanded
  bool shell = false;   // run through /bin/sh -c (values shell-quoted)
  std::string metric;
  core::Mode mode = core::Mode::kMax;
  std::string time_attr = "report";  // "report": count of objective reports
  core::SearchSpace space;
  core::SearcherSpec searcher;
  bool seed_given = false;
  // False: searcher.type is the default (config::DefaultSearcherType).
  bool searcher_type_given = false;
  int64_t num_trials = 0;
  core::SchedulerSpec scheduler;
  // False: scheduler.grace_period is the default
  // (config::DefaultGracePeriod for asha and hyperband, else 1).
  bool grace_period_given = false;
  DevicesSpec devices;
  ClusterSpec cluster;
  CheckpointSpec checkpoints;
  // auto | katib | regex | trainer_state (stdout ignored)
  std::string metrics_format = "auto";
  std::string metrics_regex;
  std::vector<std::pair<std::string, std::string>> env;  // values templated
  std::string workdir;  // absolute after loading
  TrialPolicy trial;
  std::optional<std::string> storage;  // database path, relative to workdir
  // The service: its share of the devices is priority / the sum of the
  // priorities of the experiments that want devices.
  double priority = 1;
  // The service: when under its share, it may stop a trial of an experiment
  // of lower priority and queue that trial again (docs/service.md).
  bool preempt = false;
};

}  // namespace tuner

#endif  // TUNER_TUNER_CONFIG_EXPERIMENT_CONFIG_H_
