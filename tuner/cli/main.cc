// tuner: hyperparameter sweeps with asynchronous successive halving. The
// verbs are a table (verbs.h); main() only sets up logging and runs the
// command line (command_line.h).
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <csignal>

#include "tuner/cli/command_line.h"
#include "tuner/text/terminal.h"

int main(int argc, char** argv) {
  // A closed stdout (`tuner run | head -1`) is a failed write, not death:
  // the sweep ends and records its end. Trials and shims are spawned with
  // every signal at its default (trial_runner/spawn.cc), SIGPIPE included.
  std::signal(SIGPIPE, SIG_IGN);
  auto logger = spdlog::stderr_color_mt(  // NO_COLOR, TERM=dumb: no escapes
      "tuner", tuner::EscapesAllowedHere() ? spdlog::color_mode::automatic
                                           : spdlog::color_mode::never);
  logger->set_pattern("tuner: %^%l%$: %v");
  spdlog::set_default_logger(logger);
  tuner::cli::CommandLine command_line;
  return command_line.Run(argc, argv);
}
