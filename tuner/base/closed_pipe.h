// Output whose reader has gone: `tuner reports ... | head` closes the pipe
// after the lines it wants; the tuner ignores SIGPIPE (a sweep must go on
// to its end), so the writes fail with EPIPE instead.
#ifndef TUNER_TUNER_BASE_CLOSED_PIPE_H_
#define TUNER_TUNER_BASE_CLOSED_PIPE_H_

namespace tuner {

// The exit status of a verb whose stdout's reader left before it was done:
// 128 + SIGPIPE, what a shell reports for a program killed by SIGPIPE (the
// usual end of `cmd | head`), so `set -o pipefail` treats it the same way.
inline constexpr int kExitClosedPipe = 141;

// Whether `fd` is a pipe (or socket) whose reading end is closed: a write
// to it fails with EPIPE. Asks poll() without waiting.
bool ReaderGone(int fd);

// Whether a write to stdout (stdio's or std::cout's) failed because its
// reader has gone. Flushes both first.
bool StdoutReaderGone();

}  // namespace tuner

#endif  // TUNER_TUNER_BASE_CLOSED_PIPE_H_
