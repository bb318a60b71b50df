// tuner: hyperparameter sweeps with asynchronous successive halving. The
// verbs are a table (verbs.h); main() only sets up logging and stderr and
// runs the command line (command_line.h).
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <csignal>

#include "tuner/base/one_line.h"
#include "tuner/cli/command_line.h"
#include "tuner/text/printable_stream.h"
#include "tuner/text/terminal.h"

namespace {

// %* in the log pattern: the message through the one sanitiser (OneLine),
// so a name or a trial's text in a log line prints as text.
class PrintableMessage : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm&,
              spdlog::memory_buf_t& dest) override {
    std::string shown =
        tuner::OneLine({msg.payload.data(), msg.payload.size()});
    dest.append(shown.data(), shown.data() + shown.size());
  }
  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<PrintableMessage>();
  }
};

}  // namespace

int main(int argc, char** argv) {
  // A closed stdout (`tuner run | head -1`) is a failed write, not death:
  // the sweep ends and records its end. Trials and shims are spawned with
  // every signal at its default (trial_runner/spawn.cc), SIGPIPE included.
  std::signal(SIGPIPE, SIG_IGN);
  auto logger = spdlog::stderr_color_mt(  // NO_COLOR, TERM=dumb: no escapes
      "tuner", tuner::EscapesAllowedHere() ? spdlog::color_mode::automatic
                                           : spdlog::color_mode::never);
  auto formatter = std::make_unique<spdlog::pattern_formatter>();
  formatter->add_flag<PrintableMessage>('*').set_pattern("tuner: %^%l%$: %*");
  logger->set_formatter(std::move(formatter));
  spdlog::set_default_logger(logger);
  // From here every message on stderr goes through the one sanitiser; the
  // logger above keeps the stream it was given (its colours).
  tuner::PrintableStderr printable_stderr;
  tuner::cli::CommandLine command_line(argc, argv);
  return command_line.Run(argc, argv);
}
