// ProgressSink: what a running sweep tells the person who started it.
#ifndef TUNER_TUNER_SWEEP_PROGRESS_H_
#define TUNER_TUNER_SWEEP_PROGRESS_H_

#include <cstdint>
#include <optional>
#include <string>

#include "core/param_value.h"
#include "core/trial.h"

namespace tuner {

struct SweepCounts {
  int64_t started = 0;
  int64_t total = 0;  // num_trials
  int64_t running = 0;
  int64_t paused = 0;  // waiting at a rung for a promotion
  int64_t completed = 0;
  int64_t stopped = 0;
  int64_t failed = 0;
};

struct TrialEvent {
  core::TrialId trial = 0;
  const core::Params* params = nullptr;
  int attempt = 1;
};

// Called on the sweep's thread, in event order. Implementations print.
class ProgressSink {
 public:
  virtual ~ProgressSink() = default;
  virtual void TrialStarted(const TrialEvent& event, const SweepCounts& c) = 0;
  // A judged report: time, objective and the scheduler's decision.
  virtual void TrialReported(const TrialEvent& event, double time, double value,
                             const core::Decision& decision,
                             const SweepCounts& c) = 0;
  virtual void TrialEnded(const TrialEvent& event, core::TrialStatus status,
                          const std::string& reason, const SweepCounts& c) = 0;
  virtual void SweepEnded(const std::string& outcome, const SweepCounts& c) = 0;
};

// Tells nobody: simulations and tests.
class NullProgress : public ProgressSink {
 public:
  void TrialStarted(const TrialEvent&, const SweepCounts&) override {}
  void TrialReported(const TrialEvent&, double, double, const core::Decision&,
                     const SweepCounts&) override {}
  void TrialEnded(const TrialEvent&, core::TrialStatus, const std::string&,
                  const SweepCounts&) override {}
  void SweepEnded(const std::string&, const SweepCounts&) override {}
};

}  // namespace tuner

#endif  // TUNER_TUNER_SWEEP_PROGRESS_H_
