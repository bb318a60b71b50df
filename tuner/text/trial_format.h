// Rendering stored trials for people (tables) and programs (JSON, YAML).
#ifndef TUNER_TUNER_TEXT_TRIAL_FORMAT_H_
#define TUNER_TUNER_TEXT_TRIAL_FORMAT_H_

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "storage/records.h"
#include "tuner/base/params_text.h"

namespace tuner {

// {id, status, params, last_time, last_value, best_value, attempts,
//  exit_code, reason}; absent values are null, NaN and inf are strings.
nlohmann::ordered_json TrialJson(const storage::TrialRecord& trial);

// The same fields as YAML, a list of mappings.
std::string TrialsYaml(const std::vector<storage::TrialRecord>& trials);

// An aligned text table with a header row.
std::string TrialsTable(const std::vector<storage::TrialRecord>& trials,
                        const storage::ExperimentRecord& experiment);

}  // namespace tuner

#endif  // TUNER_TUNER_TEXT_TRIAL_FORMAT_H_
