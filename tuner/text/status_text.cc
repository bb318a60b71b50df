// StatusText and ExperimentSummary (query_text.h): per experiment, the
// counts the store keeps and its best trial, both without a scan.
#include <fmt/format.h>

#include <cmath>

#include "tuner/base/one_line.h"
#include "tuner/base/params_text.h"
#include "tuner/text/csv.h"
#include "tuner/text/number_text.h"
#include "tuner/text/query_text.h"

namespace tuner {

namespace {

using Json = nlohmann::ordered_json;
using storage::ExperimentRecord;
using storage::TrialRecord;
using storage::TrialStore;

// What the status of one experiment shows.
struct Line {
  std::map<core::TrialStatus, int64_t> counts;
  std::optional<TrialRecord> best;
  int64_t Count(core::TrialStatus s) const {
    auto it = counts.find(s);
    return it == counts.end() ? 0 : it->second;
  }
};

core::Result<Line> ReadLine(TrialStore& store, const ExperimentRecord& e) {
  Line line;
  auto counts = store.trials().Count(e.id);
  if (!counts.ok()) return counts.error();
  line.counts = std::move(counts).value();
  auto best = store.trials().Best(e, 1);
  if (!best.ok()) return best.error();
  if (!best.value().empty()) line.best = best.value().front();
  return line;
}

std::string BestCell(const ExperimentRecord& e, const Line& line) {
  if (!line.best) return "-";
  const auto& b = *line.best;
  return fmt::format("{}={:.6g} (trial {}, {}={})", e.metric, *b.last_value,
                     b.id, e.time_attr,
                     core::FormatDouble(b.last_time.value_or(0)));
}

std::string TableHeader() {
  return fmt::format("{:<24} {:<11} {:>7} {:>7} {:>6} {:>9} {:>7} {:>6}  {}\n",
                     "experiment", "status", "pending", "running", "paused",
                     "completed", "stopped", "failed", "best");
}

std::string TableRow(const ExperimentRecord& e, const Line& l, bool unwatched) {
  using S = core::TrialStatus;
  std::string out = fmt::format(
      "{:<24} {:<11} {:>7} {:>7} {:>6} {:>9} {:>7} {:>6}  {}\n", e.name,
      core::ToString(e.status), l.Count(S::kPending), l.Count(S::kRunning),
      l.Count(S::kPaused), l.Count(S::kCompleted), l.Count(S::kStopped),
      l.Count(S::kFailed), BestCell(e, l));
  if (!e.reason.empty()) out += "  failed because: " + OneLine(e.reason) + "\n";
  if (unwatched) {
    out +=
        "  no tuner is running it (killed?): its trials go on under their "
        "shims; `tuner resume " +
        OneLine(e.name) + "` takes them up\n";
  }
  return out;
}

std::string CsvHeader() {
  std::vector<std::string> fields = {"experiment", "status", "metric", "mode"};
  for (auto s : core::kTrialStatuses) fields.emplace_back(core::ToString(s));
  for (const char* name : {"best_trial", "best_time", "best_value", "reason"})
    fields.emplace_back(name);
  return CsvRecord(fields);
}

std::string CsvRow(const ExperimentRecord& e, const Line& l) {
  std::vector<std::string> fields = {
      e.name, std::string(core::ToString(e.status)), e.metric,
      std::string(core::ToString(e.mode))};
  for (auto s : core::kTrialStatuses)
    fields.push_back(std::to_string(l.Count(s)));
  fields.push_back(l.best ? std::to_string(l.best->id) : "");
  fields.push_back(CsvNumber(l.best ? l.best->last_time : std::nullopt));
  fields.push_back(CsvNumber(l.best ? l.best->last_value : std::nullopt));
  fields.push_back(e.reason);
  return CsvRecord(fields);
}

Json SummaryOf(const ExperimentRecord& e, const Line& l) {
  Json counts = Json::object();
  for (auto s : core::kTrialStatuses)
    counts[std::string(core::ToString(s))] = l.Count(s);
  Json best;
  if (l.best) {
    best = {{"trial", l.best->id},
            {"value", JsonNumber(l.best->last_value)},
            {"time", JsonNumber(l.best->last_time)},
            {"params", ParamsObject(l.best->params)}};
  }
  return {{"name", e.name},
          {"status", std::string(core::ToString(e.status))},
          {"reason", e.reason},
          {"metric", e.metric},
          {"mode", std::string(core::ToString(e.mode))},
          {"time_attr", e.time_attr},
          {"max_t", JsonNumber(e.max_t)},
          {"created_at", e.created_at},
          {"updated_at", e.updated_at},
          {"counts", counts},
          {"best", best},
          {"priority", nullptr},
          {"held_devices", 0}};
}

}  // namespace

Json ExperimentSummary(TrialStore& store, const ExperimentRecord& e) {
  auto line = ReadLine(store, e);
  return SummaryOf(e, line.ok() ? line.value() : Line{});
}

core::Result<std::string> StatusText(
    TrialStore& store, const std::string& name, const std::string& format,
    const std::string& where,
    const std::function<bool(const ExperimentRecord&)>& unwatched) {
  if (format != "table" && format != "json" && format != "csv") {
    return core::InvalidArgument("unknown format '" + format +
                                 "' (table, json or csv)");
  }
  std::vector<ExperimentRecord> experiments;
  if (name.empty()) {
    auto all = store.experiments().List();
    if (!all.ok()) return all.error();
    experiments = std::move(all).value();
  } else {
    auto one = FindExperimentIn(store, name, where);
    if (!one.ok()) return one.error();
    experiments.push_back(std::move(one).value());
  }
  std::string out = format == "table" ? TableHeader()
                    : format == "csv" ? CsvHeader()
                                      : "";
  Json array = Json::array();
  for (const auto& e : experiments) {
    auto line = ReadLine(store, e);
    if (!line.ok()) return line.error();
    if (format == "json") array.push_back(SummaryOf(e, line.value()));
    if (format == "table") {
      bool alone = e.status == core::ExperimentStatus::kRunning && unwatched &&
                   unwatched(e);
      out += TableRow(e, line.value(), alone);
    }
    if (format == "csv") out += CsvRow(e, line.value());
  }
  if (format == "json") {
    // Text stored by older versions may not be UTF-8: U+FFFD, not a throw.
    out = array.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
  }
  return out;
}

}  // namespace tuner
