// Turns one line of a trial's output into metrics.
#ifndef TUNER_TRIAL_RUNNER_OUTPUT_METRIC_PARSER_H_
#define TUNER_TRIAL_RUNNER_OUTPUT_METRIC_PARSER_H_

#include <optional>
#include <string_view>

#include "core/metrics.h"

namespace tuner::runner {

// Lines longer than this are never metric lines.
inline constexpr size_t kMaxMetricLineBytes = 64 * 1024;

// The numeric metrics of `line`, or nullopt when it is not a metric line.
// Recognised forms (leading and trailing whitespace ignored):
// - a JSON object:                      {"epoch": 1, "eval_loss": 0.37}
// - Syne Tune's tag:                    [tune-metric]: {"epoch": 1, ...}
// - a Python dict, as the Hugging Face Trainer prints it:
//     {'eval_loss': 0.37, 'eval_f1': 0.91, 'epoch': 3.0}
//     {'loss': '0.6931', 'epoch': '1'}           quoted numbers
//     {'loss': nan, 'grad_norm': inf}            nan, inf, -inf
//     {'memory_allocated (GB)': np.float64(12.5)} numpy scalars, keys with
//                                                 spaces
// Only top-level numeric values are kept (numbers, numeric strings, nan and
// inf, and the first argument of calls like np.float64(x)); booleans, None,
// other strings and nested values are skipped. A malformed or truncated
// object is not a metric line. Names are valid UTF-8 (bytes that are not
// are replaced by U+FFFD). Never throws.
std::optional<core::Metrics> ParseMetricLine(std::string_view line);

}  // namespace tuner::runner

#endif  // TUNER_TRIAL_RUNNER_OUTPUT_METRIC_PARSER_H_
