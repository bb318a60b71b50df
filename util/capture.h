// Running a short command and capturing its stdout (device tools).
#ifndef TUNER_UTIL_CAPTURE_H_
#define TUNER_UTIL_CAPTURE_H_

#include <chrono>
#include <string>
#include <vector>

#include "core/result.h"

namespace tuner::util {

struct CaptureResult {
  int exit_code = -1;  // -signal when killed
  std::string output;  // stdout, at most 16 MiB
};

// Runs argv (argv[0] looked up in PATH) with posix_spawn, stdin from
// /dev/null and stderr discarded, and waits for it. NotFound when the program
// does not exist; Unavailable when it ran past `timeout` (it is killed).
// Blocks the calling thread: for start-up and CLI use, not the event loop.
core::Result<CaptureResult> RunCapture(const std::vector<std::string>& argv,
                                       std::chrono::milliseconds timeout);

}  // namespace tuner::util

#endif  // TUNER_UTIL_CAPTURE_H_
