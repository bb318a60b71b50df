// Rendering stored trials for people (tables) and programs (JSON, YAML).
#ifndef TUNER_TUNER_TEXT_TRIAL_FORMAT_H_
#define TUNER_TUNER_TEXT_TRIAL_FORMAT_H_

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "storage/records.h"
#include "tuner/base/params_text.h"

namespace tuner {

// When a trial's latest attempt ran: `start` and `end` in Unix seconds,
// `duration` in seconds. A trial not yet started has none; a running one
// no end, and its duration so far (up to `now`, Unix seconds).
struct TrialTimes {
  std::optional<double> start;
  std::optional<double> end;
  std::optional<double> duration;
};
TrialTimes TimesOf(const storage::TrialRecord& trial, double now);

// {id, status, params, last_time, last_value, best_value, attempts,
//  exit_code, start, end, duration (TimesOf, at `now`), reason}; absent
//  values are null, NaN and inf are strings.
nlohmann::ordered_json TrialJson(const storage::TrialRecord& trial, double now);

// The same fields as YAML: one item of a list ("- id: 7\n  status: ...\n");
// items written one after the other make the list.
std::string TrialYamlItem(const storage::TrialRecord& trial, double now);

// An aligned text table: the header row, then one row per trial (start
// and end in UTC, the duration as FormatDuration writes it). The columns
// have fixed widths (a wider cell shifts its own row only), so rows are
// written as they are read.
std::string TrialsTableHeader(const storage::ExperimentRecord& experiment);
std::string TrialsTableRow(const storage::TrialRecord& trial, double now);

// CSV (RFC 4180): id, status, params.NAME for each of `param_names` (empty
// when the trial has no such param), last_time, last_value, best_value,
// attempts, exit_code, start, end, duration (as in JSON), reason.
std::string TrialsCsvHeader(const std::vector<std::string>& param_names);
std::string TrialCsvRow(const storage::TrialRecord& trial,
                        const std::vector<std::string>& param_names,
                        double now);

}  // namespace tuner

#endif  // TUNER_TUNER_TEXT_TRIAL_FORMAT_H_
