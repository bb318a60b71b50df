#include "tuner/text/trial_format.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>

#include "tuner/base/one_line.h"
#include "tuner/base/params_text.h"
#include "tuner/text/csv.h"
#include "tuner/text/number_text.h"
#include "tuner/text/time_text.h"

namespace tuner {

namespace {

// A string is always quoted: a YAML 1.1 reader takes a plain `yes`, `0x10`
// or `1` for a boolean or a number.
void EmitScalar(YAML::Emitter& out, const nlohmann::ordered_json& value) {
  if (value.is_null()) {
    out << YAML::Null;
  } else if (value.is_string()) {
    out << YAML::DoubleQuoted << value.get<std::string>();
  } else if (value.is_boolean()) {
    out << value.get<bool>();
  } else if (value.is_number_integer()) {
    out << value.get<int64_t>();
  } else {
    out << core::FormatDouble(value.get<double>());
  }
}

}  // namespace

TrialTimes TimesOf(const storage::TrialRecord& t, double now) {
  TrialTimes times;
  times.start = t.started_at;
  if (!times.start) return times;
  if (t.status == core::TrialStatus::kRunning) {
    times.duration = std::max(0.0, now - *times.start);
    return times;
  }
  times.end = t.ended_at;
  if (times.end) times.duration = std::max(0.0, *times.end - *times.start);
  return times;
}

nlohmann::ordered_json TrialJson(const storage::TrialRecord& t, double now) {
  TrialTimes times = TimesOf(t, now);
  return {{"id", t.id},
          {"status", std::string(core::ToString(t.status))},
          {"params", ParamsObject(t.params)},
          {"last_time", JsonNumber(t.last_time)},
          {"last_value", JsonNumber(t.last_value)},
          {"best_value", JsonNumber(t.best_value)},
          {"attempts", t.attempts},
          {"exit_code", t.exit_code ? nlohmann::ordered_json(*t.exit_code)
                                    : nlohmann::ordered_json(nullptr)},
          {"start", JsonNumber(times.start)},
          {"end", JsonNumber(times.end)},
          {"duration", JsonNumber(times.duration)},
          {"reason", t.reason}};
}

std::string TrialYamlItem(const storage::TrialRecord& trial, double now) {
  YAML::Emitter out;
  out << YAML::BeginSeq << YAML::BeginMap;
  const nlohmann::ordered_json json = TrialJson(trial, now);
  for (const auto& [key, value] : json.items()) {
    out << YAML::Key << key << YAML::Value;
    if (value.is_object()) {
      out << YAML::BeginMap;
      for (const auto& [name, v] : value.items()) {
        out << YAML::Key << YAML::DoubleQuoted << name << YAML::Value;
        EmitScalar(out, v);
      }
      out << YAML::EndMap;
    } else {
      EmitScalar(out, value);
    }
  }
  out << YAML::EndMap << YAML::EndSeq;
  return std::string(out.c_str()) + "\n";
}

std::string TrialsTableHeader(const storage::ExperimentRecord& experiment) {
  return fmt::format(
      "{:>6}  {:<9}  {:>9}  {:>12}  {:>12}  {:<19}  {:<19}  {:>9}  {}\n",
      "trial", "status", experiment.time_attr, experiment.metric, "best",
      "start (UTC)", "end (UTC)", "duration", "params");
}

std::string TrialsTableRow(const storage::TrialRecord& t, double now) {
  TrialTimes times = TimesOf(t, now);
  return fmt::format(
      "{:>6}  {:<9}  {:>9}  {:>12}  {:>12}  {:<19}  {:<19}  {:>9}  {}{}\n",
      t.id, core::ToString(t.status), NumberCell(t.last_time),
      NumberCell(t.last_value), NumberCell(t.best_value),
      FormatUtc(times.start), FormatUtc(times.end),
      FormatDuration(times.duration), FormatParams(t.params),
      // Stored by older versions unescaped, maybe.
      t.reason.empty() ? "" : "  (" + OneLine(t.reason) + ")");
}

std::string TrialsCsvHeader(const std::vector<std::string>& param_names) {
  std::vector<std::string> fields = {"id", "status"};
  for (const auto& name : param_names) fields.push_back("params." + name);
  for (const char* name : {"last_time", "last_value", "best_value", "attempts",
                           "exit_code", "start", "end", "duration", "reason"}) {
    fields.push_back(name);
  }
  return CsvRecord(fields);
}

std::string TrialCsvRow(const storage::TrialRecord& t,
                        const std::vector<std::string>& param_names,
                        double now) {
  std::vector<std::string> fields = {std::to_string(t.id),
                                     std::string(core::ToString(t.status))};
  for (const auto& name : param_names) {
    std::string cell;
    for (const auto& [key, value] : t.params) {
      if (key == name) cell = core::FormatParamValue(value);
    }
    fields.push_back(std::move(cell));
  }
  fields.push_back(CsvNumber(t.last_time));
  fields.push_back(CsvNumber(t.last_value));
  fields.push_back(CsvNumber(t.best_value));
  fields.push_back(std::to_string(t.attempts));
  fields.push_back(t.exit_code ? std::to_string(*t.exit_code) : "");
  TrialTimes times = TimesOf(t, now);
  fields.push_back(CsvNumber(times.start));
  fields.push_back(CsvNumber(times.end));
  fields.push_back(CsvNumber(times.duration));
  fields.push_back(t.reason);
  return CsvRecord(fields);
}

}  // namespace tuner
