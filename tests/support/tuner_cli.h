// Running the `tuner` binary as a user does, for the CLI tests.
#ifndef TUNER_TESTS_SUPPORT_TUNER_CLI_H_
#define TUNER_TESTS_SUPPORT_TUNER_CLI_H_

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace tuner::testing {

struct Output {
  int code = -1;  // the exit code; -1 when killed by a signal
  std::string out;
  std::string err;
};

inline std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Runs `tuner ARGS` (a shell command line) in `dir`; its stdout and stderr
// pass through dir/out.txt and dir/err.txt.
inline Output RunTuner(const std::filesystem::path& dir,
                       const std::string& args) {
  std::string command = "cd '" + dir.string() + "' && '" TUNER_BINARY "' " +
                        args + " > out.txt 2> err.txt";
  int status = std::system(command.c_str());
  Output result;
  result.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = ReadFile(dir / "out.txt");
  result.err = ReadFile(dir / "err.txt");
  return result;
}

// Runs `tuner ARGS` as RunTuner does, its stdin a terminal (a
// pseudo-terminal) on which `typed` was typed: a user answering a question.
inline Output RunTunerTyping(const std::filesystem::path& dir,
                             const std::string& args,
                             const std::string& typed) {
  int terminal = posix_openpt(O_RDWR | O_NOCTTY);
  if (terminal < 0 || grantpt(terminal) != 0 || unlockpt(terminal) != 0) {
    return {};
  }
  std::string line = ptsname(terminal);
  // Held open, so that what is typed waits there for the reader.
  int held = open(line.c_str(), O_RDWR | O_NOCTTY);
  ssize_t written = write(terminal, typed.data(), typed.size());
  Output result;
  if (held >= 0 && written == static_cast<ssize_t>(typed.size())) {
    result = RunTuner(dir, args + " < '" + line + "'");
  }
  if (held >= 0) close(held);
  close(terminal);
  return result;
}

}  // namespace tuner::testing

#endif  // TUNER_TESTS_SUPPORT_TUNER_CLI_H_
