#include "trial_runner/output/line_reader.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <vector>

#include "tests/catch.h"
#include "trial_runner/output/metric_parser.h"
#include "trial_runner/output/rank_prefix.h"

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

// A file of its own per case, removed with it.
struct TempFile {
  explicit TempFile(const std::string& name)
      : path(std::filesystem::temp_directory_path() /
             ("tuner-" + name + "-" + std::to_string(getpid()))),
        out(path) {}
  ~TempFile() { std::filesystem::remove(path); }
  std::string path;
  std::ofstream out;
};

TEST_CASE("text after a redraw is kept however long the line before it",
          "[runner]") {
  constexpr size_t kLimit = kMaxMetricLineBytes;  // what the runners use
  std::vector<std::string> lines;
  auto collect = [&](std::string_view line) { lines.emplace_back(line); };
  SECTION("132,000 carriage returns, then the dict") {
    TempFile file("many-cr");
    LineReader reader(file.path, kLimit);
    file.out << std::string(132000, '\r') << "{\"loss\": 0.5}\n" << std::flush;
    reader.ReadAvailable(collect);
    REQUIRE(lines.size() == 1);
    CHECK(VisibleText(lines[0]).text == "{\"loss\": 0.5}");
    CHECK(lines[0].size() <= kLimit);
  }
  SECTION("132 KB of text, then a redraw and the dict") {
    TempFile file("long-then-cr");
    LineReader reader(file.path, kLimit);
    file.out << "[rank0]: " << std::string(132000, 'x')
             << "\r{\"loss\": 0.25}\n"
             << std::string(200000, 'y') << "\nend\n"
             << std::flush;
    reader.ReadAvailable(collect);
    REQUIRE(lines.size() == 2);
    CHECK(VisibleText(lines[0]).text == "{\"loss\": 0.25}");
    CHECK(VisibleText(lines[0]).rank == 0);
    CHECK(lines[1] == "end");  // the long line without a redraw is dropped
  }
  SECTION("the dict, then a long run of carriage returns") {
    TempFile file("cr-after");
    LineReader reader(file.path, kLimit);
    file.out << "{\"loss\": 0.125}" << std::string(200000, '\r') << std::flush;
    reader.ReadAvailable(collect);
    CHECK(lines.empty());
    reader.Finish(collect);
    REQUIRE(lines.size() == 1);
    std::string_view text = VisibleText(lines[0]).text;
    CHECK(text.substr(0, text.find('\r')) == "{\"loss\": 0.125}");
    CHECK(lines[0].size() <= 2 * kLimit);  // the run of them is bounded
  }
}

}  // namespace
}  // namespace tuner::runner
