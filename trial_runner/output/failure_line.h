// The line of a failed trial's stderr that says why it failed, for its
// failure reason (the CLI, the API, the dashboard).
#ifndef TUNER_TRIAL_RUNNER_OUTPUT_FAILURE_LINE_H_
#define TUNER_TRIAL_RUNNER_OUTPUT_FAILURE_LINE_H_

#include <string>
#include <string_view>

namespace tuner::runner {

// The longest line a failure reason quotes, in bytes.
inline constexpr size_t kMaxFailureLine = 240;

// The last meaningful line of `output` (the tail of a failed trial's
// stderr), e.g. `OSError: [Errno 98] Address already in use`, read as a
// terminal shows it (VisibleText: after the last carriage return, without
// `[default0]:`/`[rank0]:` prefixes) and cleaned by PrintableLine; "" when
// there is none. Skipped:
// - blank lines and lines of only punctuation (`=====`, `*****`);
// - Python tracebacks' header, frames and source (`Traceback (most recent
//   call last):`, `  File "x.py", line 3, in f`, the indented lines after
//   a frame, `During handling of the above exception ...`), so that the
//   exception's own line is what remains;
// - Python warnings (`x.py:7: UserWarning: ...` and its indented source);
// - progress bars (tqdm's `45%|####5     | 9/20 [00:01<00:01, 8.1it/s]`);
// - what torchrun prints around its ranks: its log lines (they name
//   torch.distributed.run or torch.distributed.elastic, as module or
//   path), its OMP_NUM_THREADS banner, and, when a rank failed, everything
//   from its `ChildFailedError` on (the summary that repeats the exit
//   code), so the rank's own error is what remains; when the ranks printed
//   nothing, the summary's `Signal 9 (SIGKILL) received by PID 4243`.
// Pure; never throws.
std::string LastMeaningfulLine(std::string_view output,
                               size_t max_bytes = kMaxFailureLine);

// `text` fit to quote in a reason: each ill-formed UTF-8 sequence replaced
// by one U+FFFD (ValidUtf8), tabs made spaces, trimmed, every other control
// character shown as the CLI shows it (core::Printable: an escape sequence
// as `\x1b[31m`, C1 as `\u009b`), and cut to at most `max_bytes` bytes
// between two characters as shown, ending in "…" when cut (max_bytes >= 3).
std::string PrintableLine(std::string_view text, size_t max_bytes);

}  // namespace tuner::runner

#endif  // TUNER_TRIAL_RUNNER_OUTPUT_FAILURE_LINE_H_
