#include "tuner/config/stored_config.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "trial_runner/utf8_text.h"
#include "tuner/base/tuner_lock.h"
#include "tuner/config/config_loader.h"

namespace tuner {

std::string StoredConfigJson(const ExperimentConfig& config,
                             const std::string& yaml_text,
                             const std::string& source_path,
                             const std::string& base_dir,
                             const std::string& trials_root) {
  nlohmann::ordered_json json = {
      {"source", std::filesystem::absolute(source_path).string()},
      {"base", base_dir},
      {"workdir", config.workdir},
      {"trials_root", trials_root},
      {"seed", config.searcher.seed},
      {"yaml", runner::ValidUtf8(yaml_text)}};
  // The YAML as LoadConfigText read it (invalid UTF-8 replaced the same
  // way); a path that is not UTF-8 is stored with U+FFFD.
  return json.dump(-1, ' ', false,
                   nlohmann::ordered_json::error_handler_t::replace);
}

std::string WithOverrides(const std::string& stored_json,
                          const std::vector<std::string>& overrides) {
  if (overrides.empty()) return stored_json;
  auto json = nlohmann::ordered_json::parse(stored_json, nullptr, false);
  if (!json.is_object()) return stored_json;
  json["overrides"] = overrides;
  return json.dump(-1, ' ', false,
                   nlohmann::ordered_json::error_handler_t::replace);
}

core::Result<ExperimentConfig> LoadStoredConfig(const std::string& text) {
  auto json = nlohmann::json::parse(text, nullptr, false);
  if (!json.is_object() || !json.contains("yaml")) {
    return core::InvalidArgument("the stored config is not readable");
  }
  try {
    std::string source = json.value("source", std::string("stored config"));
    std::string workdir = json.value("workdir", std::string("."));
    // Stored before "base" was: relative paths were the config file's.
    std::string base = json.value(
        "base", std::filesystem::path(source).parent_path().string());
    std::vector<std::string> overrides;
    if (json.contains("overrides") && json["overrides"].is_array()) {
      overrides = json["overrides"].get<std::vector<std::string>>();
    }
    auto config = LoadConfigText(json["yaml"].get<std::string>(), source, base,
                                 workdir, overrides);
    if (config.ok()) {
      config.value().searcher.seed = json.value("seed", uint64_t{0});
      config.value().workdir = workdir;
    }
    return config;
  } catch (const nlohmann::json::exception& e) {
    return core::InvalidArgument(std::string("the stored config: ") + e.what());
  }
}

bool IsSimulated(const std::string& text) {
  auto json = nlohmann::json::parse(text, nullptr, false);
  return json.is_object() && json.contains("simulated");
}

core::Status RefuseSimulated(const std::string& name, const std::string& json) {
  if (!IsSimulated(json)) return core::Status::Ok();
  return core::InvalidArgument(
      "experiment '" + name +
      "' is a simulation: nothing to resume (run tuner simulate again, with "
      "another --name)");
}

std::string ExperimentTrialsRoot(const std::string& text,
                                 const std::string& db_path,
                                 const std::string& name) {
  auto json = nlohmann::json::parse(text, nullptr, false);
  if (json.is_object() && json.contains("trials_root")) {
    return TrialsRootFor(db_path, name);
  }
  return LegacyTrialsRoot(db_path);
}

}  // namespace tuner
