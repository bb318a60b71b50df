// Metrics as stored: the text reads back as the same names and numbers,
// hostile names included.
#include "storage/json_codec.h"

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/catch.h"

namespace tuner::storage {
namespace {

TEST_CASE("stored metrics are JSON that reads back as the same metrics",
          "[storage][json]") {
  const double inf = std::numeric_limits<double>::infinity();
  core::Metrics metrics = {
      {"loss", 0.1},
      {"step", 3},
      {"tiny", 5e-324},
      {"huge", 1.7976931348623157e308},
      {"neg zero", -0.0},
      {"quote\"back\\slash", 1.0 / 3},
      {"tab\tnew\nline\x01", -2.5e-7},
      {"caf\xc3\xa9 \xe2\x9c\x93", 42},
      {"nan", std::nan("")},
      {"up", inf},
      {"down", -inf},
  };
  std::string text = MetricsToJson(metrics);
  INFO(text);
  auto parsed = nlohmann::ordered_json::parse(text);
  REQUIRE(parsed.is_object());
  REQUIRE(parsed.size() == metrics.size());
  size_t i = 0;
  for (const auto& [name, value] : parsed.items()) {
    CHECK(name == metrics[i].first);
    double want = metrics[i].second;
    if (std::isfinite(want)) {
      CHECK(value.get<double>() == want);
      CHECK(std::signbit(value.get<double>()) == std::signbit(want));
    } else {
      CHECK(value.is_string());
    }
    ++i;
  }
  core::Metrics back = MetricsFromJson(text);
  REQUIRE(back.size() == metrics.size());
  for (size_t k = 0; k < back.size(); ++k) {
    CHECK(back[k].first == metrics[k].first);
    if (std::isnan(metrics[k].second)) {
      CHECK(std::isnan(back[k].second));
    } else {
      CHECK(back[k].second == metrics[k].second);
    }
  }
}

TEST_CASE("a name given twice is stored once, with its last value",
          "[storage][json]") {
  std::string text =
      MetricsToJson({{"loss", 1.0}, {"acc", 0.5}, {"loss", 2.0}});
  CHECK(text == R"({"loss":2.0,"acc":0.5})");
}

TEST_CASE("a metric name that is not UTF-8 is stored with U+FFFD",
          "[storage][json]") {
  std::string text = MetricsToJson({{"bad\xff", 1.0}});
  auto parsed = nlohmann::json::parse(text);
  CHECK(parsed.contains("bad\xef\xbf\xbd"));
  CHECK(MetricsToJson({}) == "{}");
}

}  // namespace
}  // namespace tuner::storage
