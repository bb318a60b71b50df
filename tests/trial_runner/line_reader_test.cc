#include "trial_runner/line_reader.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <vector>

#include "tests/catch.h"

namespace tuner::runner {
namespace {

TEST_CASE("line reader follows appends and bounds long lines", "[runner]") {
  std::string path = std::filesystem::temp_directory_path() /
                     ("tuner-lines-" + std::to_string(getpid()));
  std::ofstream out(path);
  LineReader reader(path, 16);
  std::vector<std::string> lines;
  auto collect = [&](std::string_view line) { lines.emplace_back(line); };
  out << "one\ntw" << std::flush;
  reader.ReadAvailable(collect);
  CHECK(lines == std::vector<std::string>{"one"});
  out << "o\n" << std::string(100, 'x') << "\nthree\nlast" << std::flush;
  reader.ReadAvailable(collect);
  CHECK(lines == std::vector<std::string>{"one", "two", "three"});
  reader.Finish(collect);
  CHECK(lines.back() == "last");
  CHECK(reader.offset() == 4 + 4 + 101 + 6 + 4);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace tuner::runner
