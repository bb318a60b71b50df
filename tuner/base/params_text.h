// Trial params as text for people and programs: the one place that turns
// core::Params into JSON or a `name=value` line.
#ifndef TUNER_TUNER_BASE_PARAMS_TEXT_H_
#define TUNER_TUNER_BASE_PARAMS_TEXT_H_

#include <nlohmann/json.hpp>
#include <string>

#include "core/param_value.h"

namespace tuner {

// The params as a JSON object, in declaration order.
nlohmann::ordered_json ParamsObject(const core::Params& params);

// `name=value ...` for a progress line or a table, on one line (control
// characters escaped; doubles to 4 significant digits).
std::string FormatParams(const core::Params& params);

}  // namespace tuner

#endif  // TUNER_TUNER_BASE_PARAMS_TEXT_H_
