// ExperimentConfig: one experiment, as its YAML file describes it.
#ifndef TUNER_TUNER_EXPERIMENT_CONFIG_H_
#define TUNER_TUNER_EXPERIMENT_CONFIG_H_

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tuner/core/scheduler_spec.h"
#include "tuner/core/search_space.h"

namespace tuner {

struct TrialPolicy {
  std::chrono::milliseconds timeout{0};  // wall clock per attempt; 0 = none
  int max_failures = 0;                  // retries of a trial that crashed
  std::chrono::milliseconds stop_grace{10000};  // SIGTERM → SIGKILL
};

struct DevicesSpec {
  std::string kind = "cpu";
  int slots = 1;
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
  int64_t num_trials = 0;
  core::SchedulerSpec scheduler;
  DevicesSpec devices;
  std::vector<std::pair<std::string, std::string>> env;  // values templated
  std::string workdir;  // absolute after loading
  TrialPolicy trial;
  std::optional<std::string> storage;  // database path, relative to workdir
};

}  // namespace tuner

#endif  // TUNER_TUNER_EXPERIMENT_CONFIG_H_
