#include "tuner/config/stored_config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "tuner/base/tuner_lock.h"
#include "tuner/config/config_loader.h"
#include "tuner/config/config_overrides.h"
#include "tuner/config/database_place.h"
#include "util/utf8_text.h"

namespace tuner {

namespace {

// The defaults a stored config is read with: 2, config::DefaultSearcherType
// and config::DefaultGracePeriod. One stored without "defaults" was
// started when a config without them got searcher random and grace_period
// 1, and is read so again: a resume must not change its search or rungs.
constexpr int kDefaultRules = 2;

}  // namespace

std::string StoredConfigJson(const ExperimentConfig& config,
                             const std::string& yaml_text,
                             const std::string& source_path,
                             const std::string& base_dir,
                             const std::string& db_path) {
  DatabasePlace db = PlaceOf(db_path);
  nlohmann::ordered_json json = {
      {"source", std::filesystem::absolute(source_path).string()},
      {"base", base_dir},
      {"workdir", config.workdir},
      {"trials_root", TrialsRootFor(db_path, config.name)},
      {"db_folder", db.folder},
      {"db_file", db.file_id},
      {"seed", config.searcher.seed},
      {"defaults", kDefaultRules},
      {"yaml", util::ValidUtf8(yaml_text)}};
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

namespace {

bool SameNode(const YAML::Node& a, const YAML::Node& b) {
  if (a.Type() != b.Type()) return false;
  switch (a.Type()) {
    case YAML::NodeType::Scalar:
      return a.Scalar() == b.Scalar();
    case YAML::NodeType::Sequence:
      if (a.size() != b.size()) return false;
      for (size_t i = 0; i < a.size(); ++i) {
        if (!SameNode(a[i], b[i])) return false;
      }
      return true;
    case YAML::NodeType::Map:
      if (a.size() != b.size()) return false;
      for (const auto& entry : a) {
        const YAML::Node other = b[entry.first.Scalar()];
        if (!other || !SameNode(entry.second, other)) return false;
      }
      return true;
    default:
      return true;  // null or undefined alike
  }
}

// The document of `text` with `overrides` applied, if it is a mapping.
core::Result<YAML::Node> ConfigDocument(
    const std::string& text, const std::vector<std::string>& overrides) {
  YAML::Node root = YAML::Load(text);
  if (!root.IsMap()) return core::InvalidArgument("not a YAML mapping");
  TUNER_RETURN_IF_ERROR(config::ApplyOverrides(root, overrides));
  return root;
}

// Overrides that state the defaults an experiment stored without
// "defaults" was started with, for the keys its YAML with its `overrides`
// leaves out; none when the YAML cannot be read (the loader says why).
std::vector<std::string> FirstDefaults(
    const std::string& yaml, const std::vector<std::string>& overrides) {
  std::vector<std::string> out;
  try {
    auto doc = ConfigDocument(yaml, overrides);
    if (!doc.ok()) return out;
    const YAML::Node& root = doc.value();
    const YAML::Node searcher = root["searcher"];
    if (!searcher || (searcher.IsMap() && !searcher["type"]))
      out.push_back("searcher.type=random");
    const YAML::Node scheduler = root["scheduler"];
    if (scheduler && scheduler.IsMap() && !scheduler["grace_period"])
      out.push_back("scheduler.grace_period=1");
  } catch (const YAML::Exception&) {
    out.clear();
  }
  return out;
}

}  // namespace

core::Result<std::vector<std::string>> ChangedKeys(
    const std::string& stored_json, const std::string& text,
    const std::vector<std::string>& overrides) {
  auto json = nlohmann::json::parse(stored_json, nullptr, false);
  if (!json.is_object() || !json.contains("yaml") ||
      !json["yaml"].is_string()) {
    return core::InvalidArgument("the stored config is not readable");
  }
  std::vector<std::string> stored_overrides;
  if (json.contains("overrides") && json["overrides"].is_array()) {
    for (const auto& o : json["overrides"])
      if (o.is_string()) stored_overrides.push_back(o.get<std::string>());
  }
  try {
    auto before =
        ConfigDocument(json["yaml"].get<std::string>(), stored_overrides);
    auto after = ConfigDocument(util::ValidUtf8(text), overrides);
    if (!before.ok()) return before.error();
    if (!after.ok()) return after.error();
    std::set<std::string> keys;
    for (const auto* doc : {&before.value(), &after.value()})
      for (const auto& entry : *doc) keys.insert(entry.first.Scalar());
    keys.erase("name");
    std::vector<std::string> changed;
    const YAML::Node& a = before.value();
    const YAML::Node& b = after.value();
    for (const auto& key : keys) {
      const YAML::Node x = a[key];
      const YAML::Node y = b[key];
      if (!x || !y || !SameNode(x, y)) changed.push_back(key);
    }
    return changed;
  } catch (const YAML::Exception& e) {
    return core::InvalidArgument(std::string("config: ") + e.what());
  }
}

core::Result<ExperimentConfig> LoadStoredConfig(const std::string& text,
                                                const std::string& db_path) {
  auto json = nlohmann::json::parse(text, nullptr, false);
  if (!json.is_object() || !json.contains("yaml")) {
    return core::InvalidArgument("the stored config is not readable");
  }
  try {
    auto [from, to] = MovedRoot(json.value("base", std::string()),
                                json.value("db_folder", std::string()),
                                db_path.empty() ? "" : PlaceOf(db_path).folder);
    auto path = [&, from = from, to = to](const std::string& stored) {
      return Rebased(stored, from, to);
    };
    std::string source =
        path(json.value("source", std::string("stored config")));
    std::string workdir = path(json.value("workdir", std::string(".")));
    // Stored before "base" was: relative paths were the config file's.
    std::string base = path(json.value(
        "base", std::filesystem::path(source).parent_path().string()));
    std::vector<std::string> overrides;
    if (json.contains("overrides") && json["overrides"].is_array()) {
      overrides = json["overrides"].get<std::vector<std::string>>();
    }
    std::string yaml = json["yaml"].get<std::string>();
    if (!json.contains("defaults")) {
      for (auto& entry : FirstDefaults(yaml, overrides))
        overrides.push_back(std::move(entry));
    }
    auto config = LoadConfigText(yaml, source, base, workdir, overrides);
    if (config.ok()) {
      config.value().searcher.seed = json.value("seed", uint64_t{0});
      config.value().workdir = workdir;
      auto& checkpoints = config.value().checkpoints.dir;
      checkpoints = path(checkpoints);
    }
    return config;
  } catch (const nlohmann::json::exception& e) {
    return core::InvalidArgument(std::string("the stored config: ") + e.what());
  }
}

bool IsStoredInDatabase(const std::string& text, const std::string& db_path) {
  auto json = nlohmann::json::parse(text, nullptr, false);
  if (!json.is_object() || !json.contains("db_file") ||
      !json["db_file"].is_string()) {
    return false;
  }
  return IsRecordedFile(json["db_file"].get<std::string>(), db_path);
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

std::string FormerTrialsRoot(const std::string& text,
                             const std::string& db_path,
                             const std::string& name) {
  auto json = nlohmann::json::parse(text, nullptr, false);
  if (!json.is_object() || !json.contains("trials_root")) return "";
  auto then = json.find("db_folder");
  auto stored = json.find("trials_root");
  if (then == json.end() || !then->is_string() || !stored->is_string())
    return "";
  // FOLDER/FILE.trials/NAME as stored, FILE the database's name then (it
  // may have been renamed since), and not where the database is now.
  std::filesystem::path folder = then->get<std::string>();
  std::filesystem::path root = stored->get<std::string>();
  std::string trials = root.parent_path().filename().string();
  bool shaped =
      !folder.empty() && folder.is_absolute() && root.filename() == name &&
      root.parent_path().parent_path() == folder && trials.size() > 7 &&
      trials.compare(trials.size() - 7, 7, ".trials") == 0;
  if (!shaped || root == TrialsRootFor(db_path, name)) return "";
  // A folder, not a link to one: the name would mislead who cleans up.
  std::error_code ec;
  return std::filesystem::symlink_status(root, ec).type() ==
                 std::filesystem::file_type::directory
             ? root.string()
             : "";
}

}  // namespace tuner
