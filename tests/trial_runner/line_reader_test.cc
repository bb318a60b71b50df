#include "trial_runner/line_reader.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <vector>

#include "tests/catch.h"
#include "trial_runner/rank_prefix.h"

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

TEST_CASE("a progress bar redrawn past the line limit keeps its last redraw",
          "[runner]") {
  std::string path = std::filesystem::temp_directory_path() /
                     ("tuner-redraw-" + std::to_string(getpid()));
  std::ofstream out(path);
  LineReader reader(path, 64);
  std::vector<std::string> lines;
  auto collect = [&](std::string_view line) { lines.emplace_back(line); };
  // 1000 redraws of a bar (30 KB on one line), then the dict; twice, the
  // second teed by torchrun, its bar also written in small pieces.
  std::string bar;
  for (int i = 0; i < 1000; ++i) bar += "\r 50%|#####     | 5/10 [00:01<]";
  out << bar << "\r{'loss': 0.5}\n[default0]:" << std::flush;
  reader.ReadAvailable(collect);
  for (int i = 0; i < 100; ++i) {
    out << bar.substr(0, 300) << std::flush;
    reader.ReadAvailable(collect);
  }
  out << "\r{'loss': 0.25}\r\n"
      << std::string(100, 'x') << "\nend\n"
      << std::flush;
  reader.ReadAvailable(collect);
  REQUIRE(lines.size() == 3);
  CHECK(lines[0] == "{'loss': 0.5}");
  CHECK(lines[1].size() <= 64);
  CHECK(VisibleText(lines[1]).rank == 0);
  CHECK(VisibleText(lines[1]).text == "{'loss': 0.25}\r");
  CHECK(lines[2] == "end");
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace tuner::runner
