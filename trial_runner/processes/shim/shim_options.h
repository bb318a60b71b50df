// What tuner-shim is asked to do (its command line).
#ifndef TUNER_TRIAL_RUNNER_PROCESSES_SHIM_SHIM_OPTIONS_H_
#define TUNER_TRIAL_RUNNER_PROCESSES_SHIM_SHIM_OPTIONS_H_

#include <cstdint>
#include <string>
#include <vector>

namespace tuner::shim {

struct ShimOptions {
  std::vector<std::string> argv;  // the trial's command
  std::string cwd;
  std::string stdout_path;
  std::string stderr_path;
  std::string status_path;   // written once, atomically, when all is over
  int64_t grace_ms = 10000;  // SIGTERM → SIGKILL
  int64_t timeout_ms = 0;    // wall clock; 0: none
  int64_t idle_ms = 0;       // no output for this long: stopped; 0: none
  int64_t log_cap = 0;       // bytes per log file past which only metric-
                             // looking lines are kept; 0: no cap
  std::string tuner_lock;    // a flock a live tuner holds
  int64_t orphan_ms = 0;     // no tuner for this long: stopped; 0: never
  // NAME=VALUE set in the trial's environment over what the shim got (a
  // cluster's launcher may have set NAME for the step: the tuner's wins).
  std::vector<std::string> env;
};

}  // namespace tuner::shim

#endif  // TUNER_TRIAL_RUNNER_PROCESSES_SHIM_SHIM_OPTIONS_H_
