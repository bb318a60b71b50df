// `tuner reports NAME`: every stored report of an experiment, one row each
// (the learning curves), written as the store reads them.
#ifndef TUNER_TUNER_TEXT_REPORTS_TEXT_H_
#define TUNER_TUNER_TEXT_REPORTS_TEXT_H_

#include <ostream>
#include <string>

#include "core/result.h"
#include "storage/trial_store.h"

namespace tuner {

// The most metric names a csv listing makes columns of (trials choose the
// names they print: past this, use json).
inline constexpr int64_t kMaxMetricColumns = 1000;

// `format`:
//   table  trial, seq, attempt, TIME_ATTR, METRIC, when (UTC), aligned;
//   csv    trial, seq, attempt, TIME_ATTR, METRIC, every other metric the
//          reports carry (a column each, empty where a report has none),
//          created_at (Unix seconds): RFC 4180, for pandas.read_csv;
//   json   an array, one report per line: {trial, seq, attempt, time,
//          value, metrics: {NAME: value}, created_at};
//   jsonl  the same objects, one per line (JSON lines).
// Non-finite numbers: "nan", "inf", "-inf" (strings in JSON). TIME_ATTR
// and METRIC are the values the tuner took from each report (empty or null
// when the report had none, or a NaN objective).
core::Status WriteReports(storage::TrialStore& store,
                          const storage::ExperimentRecord& e,
                          const std::string& format, std::ostream& out);

// WriteReports into a string (the service's answer).
core::Result<std::string> ReportsText(storage::TrialStore& store,
                                      const storage::ExperimentRecord& e,
                                      const std::string& format);

}  // namespace tuner

#endif  // TUNER_TUNER_TEXT_REPORTS_TEXT_H_
