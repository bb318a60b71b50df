// Fuzz target: an experiment file through the config loader (YAML parsing,
// every key's validation, placeholders, conditions). It must answer with a
// config or a one-line error, never crash.
#include <cstddef>
#include <cstdint>
#include <string>

#include "tuner/config_loader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  auto config = tuner::LoadConfigText(text, "fuzz.yaml", "/base", "/work");
  if (!config.ok() && config.message().find('\n') != std::string::npos) {
    __builtin_trap();  // errors are one line
  }
  return 0;
}
