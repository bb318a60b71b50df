#include "tuner/sim/curve_table.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

#include "core/param_value.h"

namespace tuner::sim {

namespace {

using Json = nlohmann::json;

// "not valid JSON at column C", naming NaN and Infinity, which JSON lacks,
// or the number too large for a double.
// REQUIRES: `text` is not valid JSON and nests at most kMaxTableDepth.
std::string WhyNotJson(const std::string& text) {
  size_t byte = 0;
  try {
    Json parsed = Json::parse(text);  // throws: it is not valid
  } catch (const Json::parse_error& e) {
    byte = e.byte;
  } catch (const Json::out_of_range& e) {  // "[json.exception...] number ..."
    std::string what = e.what();
    size_t at = what.find("] ");
    return "not valid JSON: " +
           (at == std::string::npos ? what : what.substr(at + 2)) +
           " (beyond a double: write null, or a finite value)";
  }
  std::string why = "not valid JSON";
  if (byte == 0) return why;
  why += " at column " + std::to_string(byte);
  size_t at = std::min(byte - 1, text.size());
  while (at > 0 && std::isalpha(static_cast<unsigned char>(text[at - 1]))) --at;
  if (at < text.size() && text[at] == '-') ++at;
  for (const char* word : {"NaN", "Infinity"}) {
    if (text.compare(at, std::strlen(word), word) == 0)
      return why + " (" + word + " is not JSON: write null)";
  }
  return why;
}

// "FILE:LINE: what".
core::Error At(const std::string& source, int64_t line,
               const std::string& what) {
  return core::InvalidArgument(source + ":" + std::to_string(line) + ": " +
                               what);
}

// A step's metrics: its numeric fields (bools are not numbers), null as
// NaN; other types are not metrics and are left out.
core::Metrics StepMetrics(const Json& step) {
  core::Metrics metrics;
  for (const auto& [key, value] : step.items()) {
    if (key == "seconds") continue;
    if (value.is_number()) {
      metrics.emplace_back(key, value.get<double>());
    } else if (value.is_null()) {
      metrics.emplace_back(key, std::numeric_limits<double>::quiet_NaN());
    }
  }
  return metrics;
}

// Step `index` of a curve. Under time_attr `report` (reports counted) a
// step without a `report` field is report index + 1.
core::Result<CurveStep> ReadStep(const Json& step, const std::string& where,
                                 const std::string& time_attr, size_t index,
                                 double previous) {
  if (!step.is_object()) {
    return core::InvalidArgument(where + ": expected an object");
  }
  if (time_attr == "report" && !step.contains("report")) {
    Json counted = step;
    counted["report"] = index + 1;
    return ReadStep(counted, where, time_attr, index, previous);
  }
  auto seconds = step.find("seconds");
  if (seconds == step.end() || !seconds->is_number() ||
      !std::isfinite(seconds->get<double>()) || seconds->get<double>() < 0) {
    return core::InvalidArgument(where +
                                 ".seconds: expected a finite number >= 0");
  }
  auto time = step.find(time_attr);
  if (time == step.end() || !time->is_number() ||
      !std::isfinite(time->get<double>())) {
    return core::InvalidArgument(where + "." + time_attr +
                                 ": expected a finite number (the "
                                 "experiment's time_attr)");
  }
  if (time->get<double>() <= previous) {
    return core::InvalidArgument(where + "." + time_attr +
                                 ": must increase along the curve");
  }
  return CurveStep{StepMetrics(step), seconds->get<double>()};
}

core::Result<CurveRow> ReadRow(const Json& line, const std::string& where,
                               const std::string& time_attr) {
  if (!line.is_object()) {
    return core::InvalidArgument(where + ": expected a JSON object");
  }
  CurveRow row;
  auto id = line.find("id");
  if (id != line.end() && id->is_string()) row.id = id->get<std::string>();
  auto config = line.find("config");
  if (config == line.end() || !config->is_object()) {
    return core::InvalidArgument(where + ": config: expected an object");
  }
  row.config = *config;
  auto diverged = line.find("diverged");
  if (diverged != line.end() && !diverged->is_boolean()) {
    return core::InvalidArgument(where + ": diverged: expected true or false");
  }
  row.diverged = diverged != line.end() && diverged->get<bool>();
  auto curve = line.find("curve");
  if (curve == line.end() || !curve->is_array() || curve->empty()) {
    return core::InvalidArgument(where + ": curve: expected a non-empty list");
  }
  double previous = -std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < curve->size(); ++i) {
    std::string at = where + ": curve[" + std::to_string(i) + "]";
    auto step = ReadStep((*curve)[i], at, time_attr, i, previous);
    if (!step.ok()) return step.error();
    previous = *core::FindMetric(step.value().metrics, time_attr);
    row.steps.push_back(std::move(step).value());
  }
  if (auto past = StepPastTimeBound(row.steps)) {
    return core::InvalidArgument(where + ": curve[" + std::to_string(*past) +
                                 "].seconds: " + TimeBoundMessage());
  }
  return row;
}

// std::getline that stops reading past `max` bytes (sets `too_long`).
bool ReadLine(std::istream& in, std::string& out, size_t max, bool& too_long) {
  out.clear();
  too_long = false;
  std::streambuf* buf = in.rdbuf();
  for (;;) {
    int c = buf->sbumpc();
    if (c == std::char_traits<char>::eof()) {
      in.setstate(std::ios::eofbit);
      return !out.empty();
    }
    if (c == '\n') return true;
    if (out.size() == max) {
      too_long = true;
      return true;
    }
    out.push_back(static_cast<char>(c));
  }
}

}  // namespace

std::optional<size_t> StepPastTimeBound(const std::vector<CurveStep>& steps) {
  double total = 0;
  for (size_t i = 0; i < steps.size(); ++i) {
    double seconds = steps[i].seconds;
    if (!(seconds >= 0) || seconds > kMaxSimulatedSeconds - total) return i;
    total += seconds;
  }
  return std::nullopt;
}

std::string TimeBoundMessage() {
  return "the steps' seconds add up to more than " +
         core::FormatDouble(kMaxSimulatedSeconds) +
         " (about 31 years), the most a simulation may take";
}

core::Result<CurveTable> ReadCurveTable(std::istream& in,
                                        const std::string& source,
                                        const std::string& time_attr) {
  if (time_attr == "seconds") {
    return core::InvalidArgument(
        source +
        ": time_attr seconds: in a table, seconds is each step's "
        "cost, not a time");
  }
  CurveTable table;
  table.source = source;
  std::string text;
  bool too_long = false;
  for (int64_t line = 1; ReadLine(in, text, kMaxTableLine, too_long); ++line) {
    if (too_long) return At(source, line, "line longer than 64 MiB");
    if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
    if (text.find('\0') != std::string::npos)
      return At(source, line, "a NUL byte");
    bool too_deep = false;
    Json json = Json::parse(
        text,
        [&too_deep](int depth, Json::parse_event_t, Json&) {
          if (depth > kMaxTableDepth) too_deep = true;
          return !too_deep;
        },
        false);
    if (too_deep) {
      return At(
          source, line,
          "nested deeper than " + std::to_string(kMaxTableDepth) + " levels");
    }
    if (json.is_discarded()) return At(source, line, WhyNotJson(text));
    std::string where = source + ":" + std::to_string(line);
    auto row = ReadRow(json, where, time_attr);
    if (!row.ok()) return row.error();
    if (row.value().id.empty()) row.value().id = "line " + std::to_string(line);
    table.rows.push_back(std::move(row).value());
  }
  if (in.bad()) return core::IoError(source + ": read failed");
  if (table.rows.empty()) {
    return core::InvalidArgument(source + ": the table has no rows");
  }
  return table;
}

core::Result<CurveTable> ReadCurveTableFile(const std::string& path,
                                            const std::string& time_attr) {
  std::error_code ec;
  auto status = std::filesystem::status(path, ec);
  if (ec) {
    return core::InvalidArgument(path +
                                 ": cannot open the table: " + ec.message());
  }
  if (!std::filesystem::is_regular_file(status)) {
    return core::InvalidArgument(path +
                                 ": cannot open the table: not a regular file");
  }
  std::ifstream in(path);
  if (!in) {
    return core::InvalidArgument(
        path + ": cannot open the table: " + std::strerror(errno));
  }
  return ReadCurveTable(in, path, time_attr);
}

}  // namespace tuner::sim
