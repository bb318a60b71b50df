// Runs Slurm's client commands (squeue, scancel, sinfo, salloc, srun) to
// their end and captures what they print, without blocking an event loop.
#ifndef TUNER_TRIAL_RUNNER_SLURM_SLURM_COMMAND_H_
#define TUNER_TRIAL_RUNNER_SLURM_SLURM_COMMAND_H_

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <functional>
#include <string>
#include <utility>  // before Asio: Boost 1.74 with GCC 12 needs it
#include <vector>

#include "core/result.h"

namespace tuner::runner {

struct CommandResult {
  int exit_code = -1;  // -1: killed (a signal, or its timeout)
  bool timed_out = false;
  std::string out;  // its stdout, at most kMaxCommandOutput bytes
  std::string err;  // its stderr, likewise
  bool ok() const { return exit_code == 0; }
  // "squeue: error: ..." (the last line of stderr) or "exit code 1".
  std::string Why() const;
};

// Output kept of a command (a squeue of thousands of steps fits).
inline constexpr size_t kMaxCommandOutput = 16 << 20;

// Called about once a second while a command runs, with what it printed on
// stderr so far; false: end it (SIGTERM, SIGKILL 10 s later).
using KeepGoing = std::function<bool(const std::string& err_so_far)>;

// Runs `argv` (PATH looked up) to its end, or kills it after `timeout` or
// when `keep_going` says so (then `timed_out` is set too). Fails only when
// it cannot be started.
core::Result<CommandResult> RunCommand(const std::vector<std::string>& argv,
                                       std::chrono::milliseconds timeout,
                                       const KeepGoing& keep_going = {});

// Starts `argv` and calls `done` with its result on `io`'s thread once it
// ended (killed after `timeout`). A command that cannot be started calls
// `done` too (exit_code -1, err saying why), later, never inside this call.
void RunCommandAsync(boost::asio::io_context& io,
                     const std::vector<std::string>& argv,
                     std::chrono::milliseconds timeout,
                     std::function<void(CommandResult)> done);

}  // namespace tuner::runner

#endif  // TUNER_TRIAL_RUNNER_SLURM_SLURM_COMMAND_H_
