// The tests' main: Catch2's, with a lock directory of the test process's
// own, so that tests run in parallel (ctest -j) do not wait on each other's
// device leases. The tuners a test starts inherit it: they share leases.
#define CATCH_CONFIG_RUNNER
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "tests/catch.h"

int main(int argc, char* argv[]) {
  std::string dir = (std::filesystem::temp_directory_path() /
                     ("tuner-test-locks-" + std::to_string(getpid())))
                        .string();
  setenv("TUNER_LOCK_DIR", dir.c_str(), 1);
  int result = Catch::Session().run(argc, argv);
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  return result;
}
