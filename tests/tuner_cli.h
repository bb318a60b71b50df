// Running the `tuner` binary as a user does, for the CLI tests.
#ifndef TUNER_TESTS_TUNER_CLI_H_
#define TUNER_TESTS_TUNER_CLI_H_

#include <sys/wait.h>

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

}  // namespace tuner::testing

#endif  // TUNER_TESTS_TUNER_CLI_H_
