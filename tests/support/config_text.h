// Helpers for the config tests: load a config text as `x.yaml` (base
// /base, workdir /work), edit it, and expect a one-line error.
#ifndef TUNER_TESTS_SUPPORT_CONFIG_TEXT_H_
#define TUNER_TESTS_SUPPORT_CONFIG_TEXT_H_

#include <string>

#include "tests/catch.h"
#include "tuner/config/config_loader.h"

namespace tuner::testing {

inline core::Result<ExperimentConfig> Load(const std::string& text) {
  return LoadConfigText(text, "x.yaml", "/base", "/work");
}

// `text` with the first `from` replaced by `to` (which must be there).
inline std::string Replace(std::string text, const std::string& from,
                           const std::string& to) {
  auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

// Every error is one line: file, line, key, message.
inline void ExpectError(const std::string& text, const std::string& expected) {
  auto config = Load(text);
  REQUIRE_FALSE(config.ok());
  INFO(config.message());
  CHECK(config.message() == expected);
  CHECK(config.message().find('\n') == std::string::npos);
}

}  // namespace tuner::testing

#endif  // TUNER_TESTS_SUPPORT_CONFIG_TEXT_H_
