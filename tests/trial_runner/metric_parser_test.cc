#include "trial_runner/output/metric_parser.h"

#include <cmath>
#include <limits>

#include "tests/catch.h"

namespace tuner::runner {
namespace {

double Get(const core::Metrics& m, const std::string& key) {
  auto v = core::FindMetric(m, key);
  REQUIRE(v.has_value());
  return *v;
}

TEST_CASE("JSON lines and [tune-metric] lines", "[runner][parser]") {
  auto m = ParseMetricLine(R"({"epoch": 3, "eval_loss": 0.37, "name": "x"})");
  REQUIRE(m);
  CHECK(m->size() == 2);
  CHECK(Get(*m, "epoch") == 3);
  auto tagged = ParseMetricLine(R"([tune-metric]: {"epoch": 1, "acc": 0.5})");
  REQUIRE(tagged);
  CHECK(Get(*tagged, "acc") == 0.5);
  auto python_json = ParseMetricLine(R"({"loss": NaN, "x": Infinity})");
  REQUIRE(python_json);
  CHECK(std::isnan(Get(*python_json, "loss")));
  CHECK(std::isinf(Get(*python_json, "x")));
}

// Python's json.dumps escapes every non-ASCII character (\u00e9, a pair
// for one beyond the BMP) and writes NaN, which strict JSON refuses: the
// keys must still come out as the text the trial meant.
TEST_CASE("escapes in metric keys are decoded, not mangled",
          "[runner][parser]") {
  auto strict = ParseMetricLine(R"({"caf\u00e9": 1})");
  REQUIRE(strict);
  CHECK(Get(*strict, "caf\xC3\xA9") == 1);
  auto with_nan = ParseMetricLine(
      R"({"caf\u00e9": 1, "smile\ud83d\ude00": 2, "loss": NaN})");
  REQUIRE(with_nan);
  CHECK(Get(*with_nan, "caf\xC3\xA9") == 1);
  CHECK(Get(*with_nan, "smile\xF0\x9F\x98\x80") == 2);
  auto repr = ParseMetricLine(
      R"({'it\'s': 1, 'caf\xe9': 2, 'say "hi"': 3, 'a\\b': 4, "q\"": 5})");
  REQUIRE(repr);
  CHECK(Get(*repr, "it's") == 1);
  CHECK(Get(*repr, "caf\xC3\xA9") == 2);
  CHECK(Get(*repr, "say \"hi\"") == 3);
  CHECK(Get(*repr, "a\\b") == 4);
  CHECK(Get(*repr, "q\"") == 5);
}

TEST_CASE("Hugging Face Trainer dict lines", "[runner][parser]") {
  auto raw =
      ParseMetricLine("{'eval_loss': 0.37, 'eval_f1': 0.91, 'epoch': 3.0}");
  REQUIRE(raw);
  CHECK(Get(*raw, "eval_f1") == 0.91);
  auto hf44 = ParseMetricLine(
      "{'loss': 0.1085, 'grad_norm': 0.030439501628279686, 'learning_rate': "
      "1.941978532056861e-05, 'epoch': 0.09}");
  REQUIRE(hf44);
  CHECK(Get(*hf44, "learning_rate") == 1.941978532056861e-05);
  auto quoted = ParseMetricLine(
      "{'loss': '0.6931', 'grad_norm': '1.234', 'learning_rate': '2e-05', "
      "'epoch': '1'}");
  REQUIRE(quoted);
  CHECK(Get(*quoted, "learning_rate") == 2e-05);
  CHECK(Get(*quoted, "epoch") == 1);
  auto special = ParseMetricLine("{'loss': nan, 'a': inf, 'b': -inf}");
  REQUIRE(special);
  CHECK(std::isnan(Get(*special, "loss")));
  CHECK(Get(*special, "b") == -INFINITY);
  auto numpy = ParseMetricLine(
      "{'loss': 0.5, 'memory_allocated (GB)': np.float64(12.34), "
      "'max_memory_allocated (GB)': np.float32(20.5), 'epoch': 1.0}");
  REQUIRE(numpy);
  CHECK(Get(*numpy, "memory_allocated (GB)") == 12.34);
  auto mixed = ParseMetricLine(
      "{'eval_loss': tensor(0.25, device='cuda:0'), 'flag': True, 'x': None, "
      "'text': '[String too long to display, length: 3000]', 'l': [1, 2], "
      "'epoch': 2}");
  REQUIRE(mixed);
  CHECK(mixed->size() == 2);
  CHECK(Get(*mixed, "eval_loss") == 0.25);
}

TEST_CASE("a metric past double's range is infinite, as Python reads it",
          "[runner][parser]") {
  const double inf = std::numeric_limits<double>::infinity();
  for (const char* line : {"{\"a\": 1e400, \"b\": -1e400, \"c\": 1e-400}",
                           "{'a': 1e400, 'b': -1e400, 'c': 1e-400}",
                           "{\"a\": \"1e400\", \"b\": \"-1e400\", "
                           "\"c\": \"1e-400\"}"}) {
    INFO(line);
    auto metrics = ParseMetricLine(line);
    REQUIRE(metrics.has_value());
    REQUIRE(metrics->size() == 3);
    CHECK((*metrics)[0].second == inf);
    CHECK((*metrics)[1].second == -inf);
    CHECK((*metrics)[2].second == 0);
  }
}

TEST_CASE("anything else is not a metric line", "[runner][parser]") {
  for (const char* line : {
           "", "Epoch 1/3", "***** eval metrics *****",
           "{'loss': 0.5, 'epoch': ",  // truncated
           "{'loss': 0.5",             // unterminated
           "{'loss: 0.5}",             // unterminated key
           "{loss: 0.5}",              // unquoted key
           "{'a': 0.5} trailing", "}{", "{'a': 1e999x}", "[1, 2, 3]",
           "{'a': ((((((((((((((((((((1))))))))))))))))))))}",  // too deep
       }) {
    INFO(line);
    CHECK_FALSE(ParseMetricLine(line).has_value());
  }
  CHECK(ParseMetricLine(std::string(kMaxMetricLineBytes + 1, '{')) ==
        std::nullopt);
}

}  // namespace
}  // namespace tuner::runner
