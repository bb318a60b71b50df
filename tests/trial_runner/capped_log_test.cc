// CappedLog (the shim's log files): stdout keeps metric-looking lines past
// the cap, but never more than twice the cap; stderr keeps nothing past the
// cap except its last 64 KiB, added at the end, so the final error stays.
#include "trial_runner/processes/shim/capped_log.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/catch.h"

namespace tuner::shim {
namespace {

namespace fs = std::filesystem;

std::string Slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

fs::path Fresh(const std::string& name) {
  fs::path path = fs::temp_directory_path() /
                  ("tuner-capped-" + std::to_string(getpid()) + "-" + name);
  fs::remove(path);
  return path;
}

std::string JsonLines(int n) {
  std::string out;
  for (int i = 0; i < n; ++i) {
    out += "{\"level\": \"info\", \"step\": " + std::to_string(i) + "}\n";
  }
  return out;
}

TEST_CASE("under the cap a log keeps every byte", "[runner][shim]") {
  auto path = Fresh("under");
  std::string text = "plain line\n{\"epoch\": 1}\nno newline at the end";
  {
    CappedLog log(path.string(), 1 << 20, CappedLog::Kind::kStdout);
    log.Write(text);
  }
  CHECK(Slurp(path) == text);
  fs::remove(path);
}

TEST_CASE("stdout keeps metric lines past the cap, up to twice the cap",
          "[runner][shim]") {
  auto path = Fresh("stdout");
  const int64_t cap = 4096;
  std::string flood = JsonLines(20000);  // about 700 KB, all metric-like
  {
    CappedLog log(path.string(), cap, CappedLog::Kind::kStdout);
    for (size_t i = 0; i < flood.size(); i += 1000)
      log.Write(std::string_view(flood).substr(i, 1000));
  }
  std::string kept = Slurp(path);
  INFO(kept.size());
  // Metric lines past the cap are kept only up to twice the cap, not the
  // whole flood.
  CHECK(kept.size() < static_cast<size_t>(2 * cap + 512));
  CHECK(kept.size() > static_cast<size_t>(cap));
  CHECK(kept.find("twice the log cap reached") != std::string::npos);
  CHECK(kept.find("bytes of output dropped past the log cap") !=
        std::string::npos);
  fs::remove(path);
}

TEST_CASE("stderr keeps nothing past the cap but its last 64 KiB",
          "[runner][shim]") {
  auto path = Fresh("stderr");
  const int64_t cap = 4096;
  std::string flood = JsonLines(100000);  // about 3.5 MB of JSON logs
  std::string last = "Traceback (most recent call last):\nValueError: boom\n";
  {
    CappedLog log(path.string(), cap, CappedLog::Kind::kStderr);
    for (size_t i = 0; i < flood.size(); i += 4000)
      log.Write(std::string_view(flood).substr(i, 4000));
    log.Write(last);
  }
  std::string kept = Slurp(path);
  INFO(kept.size());
  CHECK(kept.size() < static_cast<size_t>(cap + 64 * 1024 + 512));
  REQUIRE(kept.size() >= last.size());
  CHECK(kept.substr(kept.size() - last.size()) == last);
  CHECK(kept.find("bytes dropped; the last 65536 bytes follow") !=
        std::string::npos);
  fs::remove(path);
}

TEST_CASE("a cap that falls inside one long line bounds both logs",
          "[runner][shim]") {
  // A progress bar: one line of \r-separated updates, no newline, then the
  // error the trial dies with. The cap cuts inside that line, and the note
  // counts the bytes dropped from it.
  const int64_t cap = 4096;
  std::string bar;
  for (int i = 0; i < 100000; ++i)
    bar += "\r 42%|####      | " + std::to_string(i);
  std::string fatal = "\rFatal: out of memory";
  for (auto kind : {CappedLog::Kind::kStderr, CappedLog::Kind::kStdout}) {
    bool err = kind == CappedLog::Kind::kStderr;
    INFO((err ? "stderr" : "stdout"));
    auto path = Fresh(err ? "bar-err" : "bar-out");
    {
      CappedLog log(path.string(), cap, kind);
      log.Write("starting\n");
      for (size_t i = 0; i < bar.size(); i += 3000)
        log.Write(std::string_view(bar).substr(i, 3000));
      log.Write(fatal);
    }
    std::string kept = Slurp(path);
    INFO(kept.size());
    if (err) {
      CHECK(kept.size() < static_cast<size_t>(cap + 64 * 1024 + 512));
      CHECK(kept.substr(kept.size() - fatal.size()) == fatal);
      // What is dropped is counted: all of it but the cap and the tail.
      auto at = kept.find("bytes dropped; the last 65536 bytes follow");
      REQUIRE(at != std::string::npos);
      auto start = kept.rfind("reached; ", at) + 9;
      int64_t dropped = std::stoll(kept.substr(start, at - start));
      int64_t total = 9 + static_cast<int64_t>(bar.size() + fatal.size());
      CHECK(dropped == total - cap - 65536);
    } else {
      CHECK(kept.size() < static_cast<size_t>(cap + 64 * 1024 + 512));
      CHECK(kept.find("bytes of output dropped past the log cap") !=
            std::string::npos);
    }
    fs::remove(path);
  }
}

}  // namespace
}  // namespace tuner::shim
