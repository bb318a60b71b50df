// What the API shows of a stored config: everything but the values of its
// `env:` section, which may hold secrets (API keys, passwords).
#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tuner/server/api.h"

namespace tuner::server {

namespace {

// The YAML text with every env value replaced by "***". Comments and
// layout are not kept (the text is emitted again); "" when the text cannot
// be read, so that nothing leaks from a config this version cannot parse.
std::string RedactedYaml(const std::string& yaml) {
  try {
    YAML::Node root = YAML::Load(yaml);
    if (!root.IsMap() || !root["env"]) return yaml;
    YAML::Node env = root["env"];
    if (env.IsMap()) {
      std::vector<std::string> keys;
      for (const auto& entry : env) keys.push_back(entry.first.Scalar());
      for (const auto& key : keys) env[key] = "***";
    } else {
      root["env"] = "***";
    }
    YAML::Emitter out;
    out << root;
    return std::string(out.c_str()) + "\n";
  } catch (const std::exception&) {
    return "";
  }
}

}  // namespace

nlohmann::ordered_json RedactedConfig(const std::string& config_json) {
  auto json = nlohmann::ordered_json::parse(config_json, nullptr, false);
  if (!json.is_object()) return nullptr;
  if (json.contains("yaml") && json["yaml"].is_string()) {
    json["yaml"] = RedactedYaml(json["yaml"].get<std::string>());
  }
  if (json.contains("env") && json["env"].is_object()) {
    for (auto& entry : json["env"].items()) entry.value() = "***";
  }
  // `--set env.KEY=VALUE` (or `--set env=...`): the value is redacted.
  if (json.contains("overrides") && json["overrides"].is_array()) {
    for (auto& entry : json["overrides"]) {
      if (!entry.is_string()) continue;
      std::string text = entry.get<std::string>();
      if (text.rfind("env.", 0) == 0 || text.rfind("env=", 0) == 0)
        entry = text.substr(0, text.find('=')) + "=***";
    }
  }
  return json;
}

}  // namespace tuner::server
