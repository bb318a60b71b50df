#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "tuner/config/config_sections.h"
#include "tuner/config/config_values.h"

// The search_space section: each parameter's distribution, range or
// values, and its `when` condition.
namespace tuner::config {

namespace {

core::Distribution ReadDistribution(const config::Reader& r,
                                    const YAML::Node& node, const Path& path) {
  static const std::vector<std::pair<std::string, core::Distribution>> kTypes(
      std::begin(core::kDistributionNames), std::end(core::kDistributionNames));
  return r.Enum(node, path, kTypes);
}

// Beyond 2^53 steps, low + k * q no longer names distinct doubles.
constexpr double kMaxQuantSteps = 9007199254740992.0;
// The largest integer every smaller one of which a double holds exactly.
constexpr int64_t kMaxExactInteger = int64_t{1} << 53;

void ReadRange(const config::Reader& r, const YAML::Node& node,
               const Path& path, core::ParamSpec& spec,
               const std::string& type) {
  bool integer = spec.distribution == core::Distribution::kRandInt ||
                 spec.distribution == core::Distribution::kLogRandInt;
  r.Keys(node, path, {"type", "low", "high", "q", "when"});
  spec.low = integer ? r.Int(r.Required(node, path, "low"), path / "low")
                     : r.Number(r.Required(node, path, "low"), path / "low");
  spec.high = integer ? r.Int(r.Required(node, path, "high"), path / "high")
                      : r.Number(r.Required(node, path, "high"), path / "high");
  // Integers are sampled as doubles: past 2^53 they are no longer exact
  // (9223372036854775807 became -2^63, 2^53 + 1 became 2^53).
  if (integer) {
    for (const char* key : {"low", "high"}) {
      if (std::abs(r.Int(node[key], path / key)) > kMaxExactInteger) {
        Fail(node[key], path / key,
             type + " bounds are within +-2^53 (9007199254740992)");
      }
    }
  }
  if (spec.low >= spec.high) {
    Fail(node["high"], path / "high",
         type + " needs low < high (got low " + core::FormatDouble(spec.low) +
             ", high " + core::FormatDouble(spec.high) + ")");
  }
  if (spec.distribution == core::Distribution::kLogUniform && spec.low <= 0) {
    Fail(node["low"], path / "low",
         "loguniform needs low > 0 (got " + core::FormatDouble(spec.low) + ")");
  }
  if (spec.distribution == core::Distribution::kLogRandInt && spec.low < 1) {
    Fail(
        node["low"], path / "low",
        "lograndint needs low >= 1 (got " + core::FormatDouble(spec.low) + ")");
  }
  // A range wider than the largest double would sample inf.
  if (!std::isfinite(spec.high - spec.low)) {
    Fail(node["high"], path / "high",
         type + " needs high - low to be a finite number");
  }
  if (spec.distribution == core::Distribution::kQUniform) {
    spec.q = r.Number(r.Required(node, path, "q"), path / "q");
    if (spec.q <= 0) Fail(node["q"], path / "q", "quniform needs q > 0");
    if (!((spec.high - spec.low) / spec.q <= kMaxQuantSteps)) {
      Fail(node["q"], path / "q",
           "quniform makes at most 2^53 steps: (high - low) / q is " +
               core::FormatDouble((spec.high - spec.low) / spec.q));
    }
  } else if (node["q"]) {
    Fail(node["q"], path / "q", "q applies to quniform only");
  }
}

core::ParamSpec ReadParam(const config::Reader& r, const std::string& name,
                          const YAML::Node& node, const Path& path) {
  r.Map(node, path);
  core::ParamSpec spec;
  spec.name = name;
  spec.distribution =
      ReadDistribution(r, r.Required(node, path, "type"), path / "type");
  std::string type = node["type"].Scalar();
  if (spec.distribution == core::Distribution::kChoice ||
      spec.distribution == core::Distribution::kGrid) {
    r.Keys(node, path, {"type", "values", "when"});
    spec.values = r.Values(r.Required(node, path, "values"), path / "values");
    if (spec.values.empty()) {
      Fail(node["values"], path / "values", type + " needs at least one value");
    }
  } else {
    ReadRange(r, node, path, spec, type);
  }
  return spec;
}

// `when: {param: value}` or `when: {param: [value, ...]}`; the param must be
// declared earlier and be a choice or a grid.
void ReadCondition(const config::Reader& r, const YAML::Node& node,
                   const Path& path, const core::SearchSpace& space,
                   core::ParamSpec& spec) {
  r.Map(node, path);
  if (node.size() != 1) Fail(node, path, "name exactly one earlier parameter");
  const auto& entry = *node.begin();
  std::string parent = entry.first.Scalar();
  auto it = std::find_if(space.params.begin(), space.params.end(),
                         [&](const auto& p) { return p.name == parent; });
  if (it == space.params.end()) {
    Fail(entry.first, path / parent,
         "names no earlier parameter (conditions refer to parameters "
         "declared above)");
  }
  if (it->distribution != core::Distribution::kChoice &&
      it->distribution != core::Distribution::kGrid) {
    Fail(entry.first, path / parent,
         "'" + parent + "' must be a choice or a grid");
  }
  core::Condition condition{parent, {}};
  if (entry.second.IsSequence()) {
    condition.values = r.Values(entry.second, path / parent);
  } else {
    YAML::Node list(YAML::NodeType::Sequence);
    list.push_back(entry.second);
    condition.values = r.Values(list, path / parent);
  }
  for (const auto& value : condition.values) {
    if (std::find(it->values.begin(), it->values.end(), value) ==
        it->values.end()) {
      Fail(entry.second, path / parent,
           "'" + core::FormatParamValue(value) +
               "' is not one of the values of '" + parent + "'");
    }
  }
  spec.when = std::move(condition);
}

}  // namespace

core::SearchSpace ReadSpace(const config::Reader& r, const YAML::Node& node,
                            const Path& path) {
  r.Map(node, path);
  core::SearchSpace space;
  for (const auto& entry : node) {
    std::string name = entry.first.Scalar();
    if (!config::IsIdentifier(name)) {
      Fail(entry.first, path / name,
           "parameter names use letters, digits and '_'");
    }
    for (const char* builtin : kBuiltinPlaceholders) {
      if (name == builtin) {
        Fail(entry.first, path / name,
             "{" + name +
                 "} is a built-in placeholder the tuner fills; give the "
                 "parameter another name");
      }
    }
    core::ParamSpec spec = ReadParam(r, name, entry.second, path / name);
    if (auto when = entry.second["when"]) {
      ReadCondition(r, when, path / name / "when", space, spec);
    }
    space.params.push_back(std::move(spec));
  }
  return space;
}

}  // namespace tuner::config
