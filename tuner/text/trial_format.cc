#include "tuner/text/trial_format.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cmath>

#include "tuner/base/one_line.h"
#include "tuner/base/params_text.h"

namespace tuner {

namespace {

nlohmann::ordered_json Number(const std::optional<double>& value) {
  if (!value) return nullptr;
  if (!std::isfinite(*value)) return core::FormatDouble(*value);
  return *value;
}

std::string Cell(const std::optional<double>& value) {
  return value ? fmt::format("{:.6g}", *value) : "-";
}

void EmitScalar(YAML::Emitter& out, const nlohmann::ordered_json& value) {
  if (value.is_null()) {
    out << YAML::Null;
  } else if (value.is_string()) {
    out << value.get<std::string>();
  } else if (value.is_boolean()) {
    out << value.get<bool>();
  } else if (value.is_number_integer()) {
    out << value.get<int64_t>();
  } else {
    out << core::FormatDouble(value.get<double>());
  }
}

}  // namespace

nlohmann::ordered_json TrialJson(const storage::TrialRecord& t) {
  return {{"id", t.id},
          {"status", std::string(core::ToString(t.status))},
          {"params", ParamsObject(t.params)},
          {"last_time", Number(t.last_time)},
          {"last_value", Number(t.last_value)},
          {"best_value", Number(t.best_value)},
          {"attempts", t.attempts},
          {"exit_code", t.exit_code ? nlohmann::ordered_json(*t.exit_code)
                                    : nlohmann::ordered_json(nullptr)},
          {"reason", t.reason}};
}

std::string TrialsYaml(const std::vector<storage::TrialRecord>& trials) {
  YAML::Emitter out;
  out << YAML::BeginSeq;
  for (const auto& trial : trials) {
    out << YAML::BeginMap;
    const nlohmann::ordered_json json = TrialJson(trial);
    for (const auto& [key, value] : json.items()) {
      out << YAML::Key << key << YAML::Value;
      if (value.is_object()) {
        out << YAML::BeginMap;
        for (const auto& [name, v] : value.items()) {
          out << YAML::Key << name << YAML::Value;
          EmitScalar(out, v);
        }
        out << YAML::EndMap;
      } else {
        EmitScalar(out, value);
      }
    }
    out << YAML::EndMap;
  }
  out << YAML::EndSeq;
  return std::string(out.c_str()) + "\n";
}

std::string TrialsTable(const std::vector<storage::TrialRecord>& trials,
                        const storage::ExperimentRecord& experiment) {
  std::string out = fmt::format("{:>6}  {:<9}  {:>9}  {:>12}  {:>12}  {}\n",
                                "trial", "status", experiment.time_attr,
                                experiment.metric, "best", "params");
  for (const auto& t : trials) {
    out += fmt::format("{:>6}  {:<9}  {:>9}  {:>12}  {:>12}  {}{}\n", t.id,
                       core::ToString(t.status), Cell(t.last_time),
                       Cell(t.last_value), Cell(t.best_value),
                       FormatParams(t.params),
                       // Stored by older versions unescaped, maybe.
                       t.reason.empty() ? "" : "  (" + OneLine(t.reason) + ")");
  }
  return out;
}

}  // namespace tuner
