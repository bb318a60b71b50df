#include "trial_runner/processes/trial_output.h"

#include <utility>

namespace tuner::runner {

namespace {

LineReader::LineHandler Feeder(LineReader& reader, MetricStream& metrics,
                               RunnerObserver& observer, core::TrialId trial) {
  return [&reader, &metrics, &observer, trial](std::string_view line) {
    int64_t offset = reader.line_end();
    metrics.Feed(line, [&](core::Metrics report) {
      observer.OnMetrics(trial, std::move(report), offset);
    });
  };
}

}  // namespace

void ReadReports(LineReader& reader, MetricStream& metrics,
                 RunnerObserver& observer, core::TrialId trial) {
  reader.ReadAvailable(Feeder(reader, metrics, observer, trial));
}

void ReadLastReports(LineReader& reader, MetricStream& metrics,
                     RunnerObserver& observer, core::TrialId trial) {
  auto feed = Feeder(reader, metrics, observer, trial);
  reader.ReadAvailable(feed);
  reader.Finish(feed);
  int64_t end = reader.offset();
  metrics.Finish([&](core::Metrics report) {
    observer.OnMetrics(trial, std::move(report), end);
  });
}

}  // namespace tuner::runner
