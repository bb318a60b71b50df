// A running trial's stdout to reports: what every runner does with the
// lines its trial appends.
#ifndef TUNER_TRIAL_RUNNER_PROCESSES_TRIAL_OUTPUT_H_
#define TUNER_TRIAL_RUNNER_PROCESSES_TRIAL_OUTPUT_H_

#include "core/trial.h"
#include "trial_runner/output/line_reader.h"
#include "trial_runner/output/metric_stream.h"
#include "trial_runner/trial_runner.h"

namespace tuner::runner {

// Feeds the lines appended since the last read to `metrics`, and gives
// each report to `observer` with the offset just past its line (where a
// tuner that adopts the trial resumes reading).
void ReadReports(LineReader& reader, MetricStream& metrics,
                 RunnerObserver& observer, core::TrialId trial);

// ReadReports to the end of the file, then the last line without a
// newline and a metrics block still open: the trial has ended.
void ReadLastReports(LineReader& reader, MetricStream& metrics,
                     RunnerObserver& observer, core::TrialId trial);

}  // namespace tuner::runner

#endif  // TUNER_TRIAL_RUNNER_PROCESSES_TRIAL_OUTPUT_H_
