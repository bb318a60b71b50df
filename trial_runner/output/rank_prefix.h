// What a terminal shows of one line of a trial's output, and which rank of
// a distributed launch printed it.
#ifndef TUNER_TRIAL_RUNNER_OUTPUT_RANK_PREFIX_H_
#define TUNER_TRIAL_RUNNER_OUTPUT_RANK_PREFIX_H_

#include <optional>
#include <string_view>

namespace tuner::runner {

struct RankedLine {
  std::optional<int> rank;  // none: the line carries no rank prefix
  std::string_view text;    // the line without its prefixes (a view into it)
};

// Strips the prefixes that launchers put before each line of a rank, in any
// sequence: torchrun's --tee `[default0]:` (`[<role><local rank>]:`, also
// what accelerate launch prints through torchrun) and torch >= 2.2's
// `[rank0]: ` (the global rank), as in `[default0]:[rank0]: text`. The rank
// is that of `[rankN]:` when present, else that of the last prefix. A
// bracket without trailing digits (`[tune-metric]:`, `[INFO]:`) is text.
RankedLine StripRankPrefix(std::string_view line);

// What a terminal shows of `line`: the rank prefixes stripped, then only
// the text after the last carriage return that has visible text after it
// (a progress bar redrawn in place, then a dict), whose own prefixes are
// stripped too. The rank is the first one found.
RankedLine VisibleText(std::string_view line);

// Where VisibleText's text may start: the first byte after the last
// carriage return in `line` that has visible text after it (0 if none).
// Bytes before it can be dropped without changing what VisibleText shows,
// except for a rank prefix at the start of the line.
size_t LastRedrawStart(std::string_view line);

}  // namespace tuner::runner

#endif  // TUNER_TRIAL_RUNNER_OUTPUT_RANK_PREFIX_H_
