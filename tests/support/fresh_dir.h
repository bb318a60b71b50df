// A directory of its own for one test: under the system's temporary
// directory, created empty, never shared with another test, another call
// or another run of the suite.
#ifndef TUNER_TESTS_SUPPORT_FRESH_DIR_H_
#define TUNER_TESTS_SUPPORT_FRESH_DIR_H_

#include <stdlib.h>
#include <sys/stat.h>

#include <cerrno>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

namespace tuner::testing {

// Creates and returns `<temp>/tuner-<name>-XXXXXX` (a unique suffix, as
// mkdtemp(3) makes it), with mode `mode` whatever the umask. `name` says
// which test it is, for a reader of /tmp. Throws
// std::filesystem::filesystem_error if it cannot.
inline std::filesystem::path FreshDir(const std::string& name,
                                      mode_t mode = 0755) {
  std::string pattern =
      (std::filesystem::temp_directory_path() / ("tuner-" + name + "-XXXXXX"))
          .string();
  std::vector<char> path(pattern.begin(), pattern.end());
  path.push_back('\0');
  if (mkdtemp(path.data()) == nullptr) {
    throw std::filesystem::filesystem_error(
        "FreshDir", pattern, std::error_code(errno, std::generic_category()));
  }
  if (chmod(path.data(), mode) != 0) {
    throw std::filesystem::filesystem_error(
        "FreshDir: chmod", pattern,
        std::error_code(errno, std::generic_category()));
  }
  return std::filesystem::path(path.data());
}

}  // namespace tuner::testing

#endif  // TUNER_TESTS_SUPPORT_FRESH_DIR_H_
