// Rows of the database, as the store returns them.
#ifndef TUNER_STORAGE_RECORDS_H_
#define TUNER_STORAGE_RECORDS_H_

#include <cstdint>
#include <optional>
#include <string>

#include "core/metrics.h"
#include "core/param_value.h"
#include "core/trial.h"

namespace tuner::storage {

using ExperimentId = int64_t;

struct ExperimentRecord {
  ExperimentId id = 0;
  std::string name;
  core::ExperimentStatus status = core::ExperimentStatus::kRunning;
  std::string reason;  // failed: why (the sweep's error); else empty
  std::string metric;
  core::Mode mode = core::Mode::kMax;
  std::string time_attr;
  std::optional<double> max_t;
  std::string config_json;  // the resolved config
  double created_at = 0;
  double updated_at = 0;
};

struct TrialRecord {
  core::TrialId id = 0;
  ExperimentId experiment_id = 0;
  int64_t index = 0;
  core::TrialStatus status = core::TrialStatus::kPending;
  core::Params params;
  int64_t attempts = 0;
  std::optional<int64_t> exit_code;  // exit status, or -signal number
  std::string reason;
  std::optional<double> last_time;
  std::optional<double> last_value;
  std::optional<double> best_value;
  double created_at = 0;
  std::optional<double> started_at;
  std::optional<double> ended_at;
  std::optional<int64_t> shim_pid;    // its tuner-shim, while it runs
  std::optional<int64_t> shim_start;  // the shim's /proc start time
};

struct ReportRecord {
  core::TrialId trial = 0;
  int64_t seq = 0;
  std::optional<double> time;
  std::optional<double> value;
  core::Metrics metrics;
  int64_t attempt = 1;            // the launch of the trial it came from
  std::optional<int64_t> offset;  // stdout bytes read up to it
  double created_at = 0;          // seconds since the epoch (when read)
};

struct DecisionRecord {
  core::TrialId trial = 0;
  core::RungDecision decision;
};

// Devices one attempt of a trial held, and when.
struct LeaseRecord {
  int64_t id = 0;
  core::TrialId trial = 0;
  int64_t attempt = 0;
  std::string kind;
  std::string devices;  // "4,5"
  std::string cpus;     // "0-11", empty when not pinned
  double acquired_at = 0;
  std::optional<double> released_at;
  std::string node;  // the cluster node of the devices; "": this machine
};

// The cluster allocation an experiment's trials run in (docs/slurm.md).
struct ClusterJob {
  std::string job;      // a Slurm job id; "": none (this machine)
  bool booked = false;  // the tuner booked it, and releases it at the end
};

// One report of an experiment's trial, for its learning curve.
struct CurvePoint {
  core::TrialId trial = 0;
  int64_t seq = 0;
  int64_t attempt = 1;
  std::optional<double> time;
  std::optional<double> value;
  double created_at = 0;  // seconds since the epoch
};

// The retry budgets a trial has spent, over all its attempts.
struct RetryCounts {
  int64_t failures = 0;        // failed attempts retried
  int64_t device_retries = 0;  // attempts relaunched after a busy device
};

// What a trial's row says after it ended.
struct TrialEnd {
  core::TrialStatus status = core::TrialStatus::kCompleted;
  std::optional<int64_t> exit_code;
  std::string reason;
  std::optional<double> last_time;  // overrides the row's, when set
  // When its process ended, if known and earlier than now (its shim's
  // status, read by a tuner that was not running then).
  std::optional<double> exited_at;
};

}  // namespace tuner::storage

#endif  // TUNER_STORAGE_RECORDS_H_
