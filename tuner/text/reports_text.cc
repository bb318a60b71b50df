#include "tuner/text/reports_text.h"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tuner/base/one_line.h"
#include "tuner/text/csv.h"
#include "tuner/text/number_text.h"
#include "tuner/text/time_text.h"

namespace tuner {

namespace {

using Json = nlohmann::ordered_json;
using storage::ExperimentRecord;
using storage::ReportRecord;

Json ReportJson(const ReportRecord& r) {
  Json metrics = Json::object();
  for (const auto& [name, value] : r.metrics) metrics[name] = JsonNumber(value);
  return {{"trial", r.trial},
          {"seq", r.seq},
          {"attempt", r.attempt},
          {"time", JsonNumber(r.time)},
          {"value", JsonNumber(r.value)},
          {"metrics", metrics},
          {"created_at", r.created_at}};
}

std::string JsonLine(const ReportRecord& r) {
  // Names stored by older versions may not be UTF-8: U+FFFD, not a throw.
  return ReportJson(r).dump(-1, ' ', false, Json::error_handler_t::replace);
}

// The csv columns after the tuner's own: every metric name but the two
// the tuner took out (they have their columns).
core::Result<std::vector<std::string>> OtherMetrics(storage::TrialStore& store,
                                                    const ExperimentRecord& e) {
  auto names = store.reports().MetricNames(e.id, kMaxMetricColumns);
  if (!names.ok()) {
    return core::InvalidArgument("experiment '" + e.name + "': " +
                                 names.message() + "; use --format json");
  }
  std::vector<std::string> out;
  for (auto& name : names.value()) {
    if (name != e.time_attr && name != e.metric) out.push_back(name);
  }
  return out;
}

// The csv header: the tuner's columns, then one per metric, each named so
// that no metric can pass for another column (CsvColumnNames).
std::vector<std::string> CsvColumns(const ExperimentRecord& e,
                                    const std::vector<std::string>& others) {
  CsvColumnNames names({"trial", "seq", "attempt", "created_at"}, "metrics.");
  std::vector<std::string> header = {"trial", "seq", "attempt",
                                     names.Column(e.time_attr),
                                     names.Column(e.metric)};
  for (const auto& name : others) header.push_back(names.Column(name));
  header.push_back("created_at");
  return header;
}

std::string CsvRow(const ReportRecord& r,
                   const std::vector<std::string>& others) {
  std::vector<std::string> fields = {
      std::to_string(r.trial), std::to_string(r.seq), std::to_string(r.attempt),
      CsvNumber(r.time), CsvNumber(r.value)};
  for (const auto& name : others) {
    std::optional<double> value;
    for (const auto& [key, v] : r.metrics) {
      if (key == name) value = v;
    }
    fields.push_back(CsvNumber(value));
  }
  fields.push_back(CsvNumber(r.created_at));
  return CsvRecord(fields);
}

}  // namespace

core::Status WriteReports(storage::TrialStore& store, const ExperimentRecord& e,
                          const std::string& format, std::ostream& out) {
  std::function<void(const ReportRecord&)> row;
  std::vector<std::string> others;
  int64_t rows = 0;
  bool non_finite = false;  // a table row showed nan or inf
  if (format == "table") {
    out << fmt::format("{:>6}  {:>6}  {:>7}  {:>9}  {:>12}  {}\n", "trial",
                       "seq", "attempt", OneLine(e.time_attr),
                       OneLine(e.metric), "when (UTC)");
    row = [&](const ReportRecord& r) {
      out << fmt::format("{:>6}  {:>6}  {:>7}  {:>9}  {:>12}  {}\n", r.trial,
                         r.seq, r.attempt, NumberCell(r.time),
                         NumberCell(r.value), FormatUtc(r.created_at));
      non_finite = non_finite || NonFinite(r.time) || NonFinite(r.value);
    };
  } else if (format == "csv") {
    auto names = OtherMetrics(store, e);
    if (!names.ok()) return names.error();
    others = std::move(names).value();
    out << CsvRecord(CsvColumns(e, others));
    row = [&](const ReportRecord& r) { out << CsvRow(r, others); };
  } else if (format == "json") {
    row = [&](const ReportRecord& r) {
      out << (rows == 1 ? "[\n" : ",\n") << JsonLine(r);
    };
  } else if (format == "jsonl") {
    row = [&](const ReportRecord& r) { out << JsonLine(r) << "\n"; };
  } else {
    return core::InvalidArgument("unknown format '" + format +
                                 "' (table, csv, json or jsonl)");
  }
  TUNER_RETURN_IF_ERROR(
      store.reports().ForEach(e.id, [&](const ReportRecord& r) -> core::Status {
        ++rows;
        row(r);
        return core::Status::Ok();
      }));
  if (format == "json") out << (rows == 0 ? "[]\n" : "\n]\n");
  if (non_finite) out << kNonFiniteFootnote;
  return core::Status::Ok();
}

core::Result<std::string> ReportsText(storage::TrialStore& store,
                                      const ExperimentRecord& e,
                                      const std::string& format) {
  std::ostringstream out;
  auto status = WriteReports(store, e, format, out);
  if (!status.ok()) return status.error();
  return std::move(out).str();
}

}  // namespace tuner
