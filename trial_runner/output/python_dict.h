// A parser for the repr() of a flat Python dict of scalars.
#ifndef TUNER_TRIAL_RUNNER_OUTPUT_PYTHON_DICT_H_
#define TUNER_TRIAL_RUNNER_OUTPUT_PYTHON_DICT_H_

#include <optional>
#include <string_view>

#include "core/metrics.h"

namespace tuner::runner {

// Parses `text` (the whole of it) as a Python dict literal and returns its
// numeric entries; nullopt if it is not one. See ParseMetricLine for the
// accepted values. Also accepts the JSON spellings NaN, Infinity, true,
// false and null, so it reads Python's json.dumps output too.
std::optional<core::Metrics> ParsePythonDict(std::string_view text);

// Reads a number as Python or JSON prints it ("0.5", "1e-05", "-inf", "nan",
// "NaN", "Infinity"); nullopt unless the whole of `text` is one. A number
// past the range of double is read as Python reads it: 1e400 is inf.
std::optional<double> ParseNumber(std::string_view text);

}  // namespace tuner::runner

#endif  // TUNER_TRIAL_RUNNER_OUTPUT_PYTHON_DICT_H_
