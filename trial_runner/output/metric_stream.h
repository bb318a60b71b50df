// MetricStream: a trial's stdout, line by line, to reports. Stateful,
// because the Trainer's "***** eval metrics *****" block spans lines.
#ifndef TUNER_TRIAL_RUNNER_OUTPUT_METRIC_STREAM_H_
#define TUNER_TRIAL_RUNNER_OUTPUT_METRIC_STREAM_H_

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "core/metrics.h"
#include "core/result.h"

namespace re2 {
class RE2;
}

namespace tuner::runner {

// Which forms a trial's lines may take besides the always-on ones.
struct MetricFormat {
  enum class Extra { kNone, kKatib, kRegex };
  Extra extra = Extra::kNone;
  // kRegex: matched anywhere in a line, repeatedly, in RE2's syntax
  // (linear time: no backreferences, no lookaround). Two groups: a
  // metric's name and value; one group: the value of `objective`.
  std::string regex;
  std::string objective;
  bool enabled = true;  // false: stdout carries no metrics at all
};

// Checks a MetricFormat::regex: it must compile (RE2) and have 1 or 2
// groups.
core::Status CheckMetricRegex(const std::string& regex);

class MetricStream {
 public:
  using Emit = std::function<void(core::Metrics)>;
  explicit MetricStream(const MetricFormat& format);
  ~MetricStream();
  MetricStream(const MetricStream&) = delete;
  MetricStream& operator=(const MetricStream&) = delete;

  // Always recognised: every form of ParseMetricLine (JSON, [tune-metric]:,
  // Hugging Face dicts) and the Trainer's log_metrics block (keys may hold
  // spaces, as GaudiTrainer's `max_memory_allocated (GB)`):
  //   ***** eval metrics *****
  //     epoch                   =        3.0
  //     eval_runtime            = 0:00:05.12     (H:MM:SS.cc: seconds)
  //     train_mem_cpu_alloc_delta =      12MB    (number kept, unit dropped)
  // which becomes one report when a line that is not `  key = value` (or
  // Finish) ends it. With kKatib, also `name=value` pairs (Katib's default
  // filter) on other lines; with kRegex, the user's pattern.
  // A line is read as a terminal shows it (VisibleText: the text after the
  // last carriage return, without torchrun's `[default0]:` or torch's
  // `[rank0]:` prefixes); a line that a rank other than 0 printed is
  // ignored (only rank 0 reports; unprefixed lines count). Bytes that are
  // not UTF-8 are replaced by U+FFFD first (ValidUtf8), so every metric
  // name emitted is valid UTF-8.
  void Feed(std::string_view line, const Emit& emit);
  // End of output: emits a block still open.
  void Finish(const Emit& emit);

 private:
  bool FeedBlock(std::string_view line, const Emit& emit);
  std::optional<core::Metrics> Extra(std::string_view line) const;

  MetricFormat format_;
  std::unique_ptr<re2::RE2> regex_;  // kKatib and kRegex
  bool in_block_ = false;
  core::Metrics block_;
};

// "0:02:12.85" as seconds; "12MB", "4490144GF" as their number; any
// number as ParseNumber reads it.
std::optional<double> ParseBlockValue(std::string_view text);

}  // namespace tuner::runner

#endif  // TUNER_TRIAL_RUNNER_OUTPUT_METRIC_STREAM_H_
