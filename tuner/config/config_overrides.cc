#include "tuner/config/config_overrides.h"

#include <optional>
#include <string_view>

#include "tuner/config/config_loader.h"
#include "util/utf8_text.h"

namespace tuner::config {

namespace {

constexpr size_t kMaxOverrideBytes = 64 * 1024;
constexpr std::string_view kNamePrefix = "--name=";

// The NAME of a NameOverride entry, if `text` is one.
std::optional<std::string> NameOf(const std::string& text) {
  if (text.compare(0, kNamePrefix.size(), kNamePrefix) != 0)
    return std::nullopt;
  return text.substr(kNamePrefix.size());
}

// The flag the user typed for an entry: "--set KEY=VALUE" or "--name NAME".
std::string Flag(const std::string& text) {
  if (auto name = NameOf(text)) return "--name " + *name;
  return "--set " + text;
}

// The key an entry sets: KEY of "KEY=VALUE", `name` for --name.
std::string KeyOf(const std::string& text) {
  if (NameOf(text)) return "name";
  return text.substr(0, text.find('='));
}

std::vector<std::string> SplitKey(const std::string& key) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    size_t dot = key.find('.', start);
    parts.push_back(key.substr(start, dot - start));
    if (dot == std::string::npos) return parts;
    start = dot + 1;
  }
}

// A C0 control other than tab, or DEL (tuner::HasControl, stricter, is for
// what is printed).
bool HasControlButTab(const std::string& text) {
  for (unsigned char c : text) {
    if ((c < 0x20 && c != '\t') || c == 0x7f) return true;
  }
  return false;
}

core::Status Apply(YAML::Node& root, const std::string& text) {
  if (auto name = NameOf(text)) {
    root["name"] = *name;
    return core::Status::Ok();
  }
  auto fail = [&](const std::string& why) {
    return core::InvalidArgument(Flag(text) + ": " + why);
  };
  size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    return fail("expected KEY=VALUE (e.g. scheduler.max_t=20)");
  std::vector<std::string> keys = SplitKey(text.substr(0, eq));
  for (const auto& key : keys) {
    if (key.empty()) return fail("a key part is empty");
  }
  YAML::Node value;
  try {
    value = YAML::Load(text.substr(eq + 1));
  } catch (const YAML::Exception& e) {
    return fail("invalid YAML value: " + e.msg);
  }
  YAML::Node node = root;
  std::string path;
  for (size_t i = 0; i + 1 < keys.size(); ++i) {
    path += (i ? "." : "") + keys[i];
    YAML::Node child = node[keys[i]];
    if (!child.IsDefined() || child.IsNull()) {
      node[keys[i]] = YAML::Node(YAML::NodeType::Map);
    } else if (!child.IsMap()) {
      return fail(path + " is not a mapping");
    }
    node.reset(node[keys[i]]);
  }
  node[keys.back()] = value;
  return core::Status::Ok();
}

// True if `a` is `b` or a key inside it ("x.y" is inside "x").
bool Within(const std::string& a, const std::string& b) {
  return a == b || (a.size() > b.size() && a.compare(0, b.size(), b) == 0 &&
                    a[b.size()] == '.');
}

}  // namespace

std::string NameOverride(const std::string& name) {
  return std::string(kNamePrefix) + name;
}

core::Status ApplyOverrides(YAML::Node& root,
                            const std::vector<std::string>& overrides) {
  for (const auto& text : overrides) {
    const char* flag = NameOf(text) ? "--name" : "--set";
    if (text.size() > kMaxOverrideBytes) {
      return core::InvalidArgument(std::string(flag) +
                                   ": a value longer than 64 KiB");
    }
    if (!util::IsValidUtf8(text) || HasControlButTab(text)) {
      return core::InvalidArgument(
          std::string(flag) +
          ": a value holds a control character or is not UTF-8");
    }
  }
  if (!root.IsMap()) return core::Status::Ok();
  for (const auto& text : overrides) {
    if (auto status = Apply(root, text); !status.ok()) return status;
  }
  return core::Status::Ok();
}

std::string BlameOverride(const std::string& error,
                          const std::vector<std::string>& overrides) {
  size_t colon = error.find(": ");
  if (colon == std::string::npos) return "";
  std::string rest = error.substr(colon + 2);
  size_t key_end = rest.find(": ");
  if (key_end == std::string::npos) return "";
  std::string key = rest.substr(0, key_end);
  for (auto it = overrides.rbegin(); it != overrides.rend(); ++it) {
    std::string set = KeyOf(*it);
    if (Within(key, set) || Within(set, key)) return Flag(*it) + ": " + rest;
  }
  return "";
}

}  // namespace tuner::config

namespace tuner {

core::Result<std::string> OverriddenConfigText(
    const std::string& text, const std::string& origin,
    const std::string& invocation_dir,
    const std::vector<std::string>& overrides) {
  if (overrides.empty()) return text;
  auto config =
      LoadConfigText(text, origin, invocation_dir, invocation_dir, overrides);
  if (!config.ok()) return config.error();
  try {
    YAML::Node root = YAML::Load(text);  // valid: it loaded just now
    auto applied = config::ApplyOverrides(root, overrides);
    if (!applied.ok()) return applied.error();
    YAML::Emitter out;
    out << root;
    return std::string(out.c_str()) + "\n";
  } catch (const YAML::Exception& e) {
    return core::InvalidArgument(origin + ": " + e.msg);
  }
}

}  // namespace tuner
