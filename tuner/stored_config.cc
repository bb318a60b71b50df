#include "tuner/stored_config.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "tuner/config_loader.h"

namespace tuner {

std::string StoredConfigJson(const ExperimentConfig& config,
                             const std::string& yaml_text,
                             const std::string& source_path) {
  nlohmann::ordered_json json = {
      {"source", std::filesystem::absolute(source_path).string()},
      {"workdir", config.workdir},
      {"seed", config.searcher.seed},
      {"yaml", yaml_text}};
  return json.dump();
}

core::Result<ExperimentConfig> LoadStoredConfig(const std::string& text) {
  auto json = nlohmann::json::parse(text, nullptr, false);
  if (!json.is_object() || !json.contains("yaml")) {
    return core::InvalidArgument("the stored config is not readable");
  }
  try {
    std::string source = json.value("source", std::string("stored config"));
    std::string workdir = json.value("workdir", std::string("."));
    auto config = LoadConfigText(
        json["yaml"].get<std::string>(), source,
        std::filesystem::path(source).parent_path().string(), workdir);
    if (config.ok()) {
      config.value().searcher.seed = json.value("seed", uint64_t{0});
      config.value().workdir = workdir;
    }
    return config;
  } catch (const nlohmann::json::exception& e) {
    return core::InvalidArgument(std::string("the stored config: ") + e.what());
  }
}

}  // namespace tuner
