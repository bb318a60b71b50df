// Bytes that are not UTF-8, in every text a trial hands the tuner: they
// become U+FFFD where they enter, so no JSON encoding further on can fail.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/catch.h"
#include "trial_runner/output/failure_class.h"
#include "trial_runner/output/failure_line.h"
#include "trial_runner/output/metric_parser.h"
#include "trial_runner/output/metric_stream.h"
#include "trial_runner/output/trainer_state.h"
#include "util/utf8_text.h"

namespace tuner::runner {
namespace {

const std::string kFffd = "\xEF\xBF\xBD";

// What a strict JSON encoder makes of the names: throws if one is invalid.
std::string StrictJson(const core::Metrics& metrics) {
  nlohmann::json object = nlohmann::json::object();
  for (const auto& [name, value] : metrics) object[name] = value;
  return object.dump();
}

std::vector<core::Metrics> FeedAll(MetricStream& stream,
                                   const std::vector<std::string>& lines) {
  std::vector<core::Metrics> out;
  auto emit = [&out](core::Metrics m) { out.push_back(std::move(m)); };
  for (const auto& line : lines) stream.Feed(line, emit);
  stream.Finish(emit);
  return out;
}

TEST_CASE("ValidUtf8 replaces each ill-formed sequence by one U+FFFD",
          "[runner][utf8]") {
  CHECK(util::ValidUtf8("caf\xc3\xa9") == "caf\xc3\xa9");  // valid: unchanged
  CHECK(util::ValidUtf8("caf\xe9") == "caf" + kFffd);      // Latin-1
  CHECK(util::ValidUtf8("\xc3") == kFffd);                 // truncated
  CHECK(util::ValidUtf8("\xc0\xaf") == kFffd);             // overlong '/'
  CHECK(util::ValidUtf8("\xed\xa0\x80") == kFffd);         // a surrogate
  CHECK(util::ValidUtf8("\xf4\x90\x80\x80") == kFffd);     // past U+10FFFF
  CHECK(util::ValidUtf8(std::string("a\0b", 3)) == std::string("a\0b", 3));
  CHECK(util::IsValidUtf8(util::ValidUtf8("\xff\xfe\x80 x \xe2\x82")));
}

TEST_CASE("a metric name that is not UTF-8 is read with U+FFFD",
          "[runner][utf8]") {
  MetricStream stream(MetricFormat{});
  auto reports = FeedAll(
      stream, {"{'lo\xe9ss': 0.5, 'score': 0.5, 'epoch': 1}",
               "{\"f\xff\": 2, \"epoch\": 2}", "***** eval metrics *****",
               "  eval_\xe9 = 0.25", "  epoch = 3.0", "done"});
  REQUIRE(reports.size() == 3);
  CHECK(reports[0] == core::Metrics{{"lo" + kFffd + "ss", 0.5},
                                    {"score", 0.5},
                                    {"epoch", 1}});
  CHECK(reports[1] == core::Metrics{{"f" + kFffd, 2}, {"epoch", 2}});
  CHECK(reports[2] == core::Metrics{{"eval_" + kFffd, 0.25}, {"epoch", 3}});
  for (const auto& r : reports) CHECK_NOTHROW(StrictJson(r));
  auto parsed = ParseMetricLine("{'\xe9': 1}");
  REQUIRE(parsed);
  CHECK(parsed->at(0).first == kFffd);
}

TEST_CASE("katib and regex names that are not UTF-8 are read with U+FFFD",
          "[runner][utf8]") {
  MetricStream katib(MetricFormat{MetricFormat::Extra::kKatib, "", "score"});
  auto reports = FeedAll(katib, {"epoch=1 sc\xe9re=0.5"});
  REQUIRE(reports.size() == 1);
  for (const auto& [name, value] : reports[0]) CHECK(util::IsValidUtf8(name));
  MetricStream regex(MetricFormat{MetricFormat::Extra::kRegex,
                                  R"((\S+): ([0-9.]+))", "score"});
  reports = FeedAll(regex, {"lo\xe9ss: 0.5"});
  REQUIRE(reports.size() == 1);
  CHECK(reports[0] == core::Metrics{{"lo" + kFffd + "ss", 0.5}});
}

TEST_CASE("a trainer_state.json that is not UTF-8 is still read",
          "[runner][utf8]") {
  std::string path = std::filesystem::temp_directory_path() /
                     ("tuner-state-utf8-" + std::to_string(getpid()));
  std::ofstream(path) << "{\"epoch\": 1.0, \"global_step\": 10, "
                         "\"log_history\": [{\"eval_f\xe9\": 0.5, "
                         "\"note\": \"caf\xe9\", \"epoch\": 1.0}]}";
  auto state = ReadTrainerState(path);
  std::filesystem::remove(path);
  REQUIRE(state);
  REQUIRE(state->log_history.size() == 1);
  CHECK(state->log_history[0] ==
        core::Metrics{{"epoch", 1.0}, {"eval_f" + kFffd, 0.5}});
}

TEST_CASE("a failure line with a Latin-1 byte is quoted as UTF-8",
          "[runner][utf8][failure]") {
  auto oom =
      ClassifyFailure("torch.OutOfMemoryError: CUDA out of memory (caf\xe9)\n");
  CHECK(oom.kind == FailureClass::kOutOfMemory);
  CHECK(oom.line ==
        "torch.OutOfMemoryError: CUDA out of memory (caf" + kFffd + ")");
  CHECK(LastMeaningfulLine("ValueError: \xff\xfe\n") ==
        "ValueError: " + kFffd + kFffd);
}

}  // namespace
}  // namespace tuner::runner
