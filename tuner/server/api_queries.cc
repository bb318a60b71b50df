// The API's reads: experiments, trials, reports, the best ones, one trial
// (the dashboard's curves and leases: api_views.cc).
#include <cmath>
#include <nlohmann/json.hpp>

#include "tuner/base/clock.h"
#include "tuner/config/stored_config.h"
#include "tuner/server/api.h"
#include "tuner/text/number_text.h"
#include "tuner/text/query_text.h"
#include "tuner/text/reports_text.h"
#include "tuner/text/trial_format.h"

namespace tuner::server {

namespace {

using Json = nlohmann::ordered_json;
using storage::ExperimentRecord;
using storage::TrialStore;

Response Text(const core::Result<std::string>& text,
              const std::string& format) {
  if (!text.ok()) return ErrorResponse(text.error());
  Response r;
  r.body = text.value();
  r.content_type = format == "json"  ? "application/json"
                   : format == "csv" ? "text/csv; charset=utf-8"
                                     : "text/plain; charset=utf-8";
  return r;
}

std::string FormatOf(const std::map<std::string, std::string>& query) {
  auto it = query.find("format");
  return it == query.end() ? "json" : it->second;
}

Json Summary(TrialStore& store, const ExperimentRecord& e,
             const std::vector<RunningInfo>& running) {
  Json out = ExperimentSummary(store, e);
  for (const auto& r : running) {
    if (r.name != e.name) continue;
    out["priority"] = r.priority;
    out["held_devices"] = r.held_devices;
    if (r.stopping) out["status"] = "stopping";
  }
  return out;
}

// The search space as the dashboard draws it: each param's kind, range or
// values, and whether its axis is logarithmic. Empty when the stored config
// cannot be read (it was written by another version).
Json SpaceJson(const std::string& config_json) {
  Json out = Json::array();
  auto config = LoadStoredConfig(config_json, "");  // paths unused
  if (!config.ok()) return out;
  for (const auto& p : config.value().space.params) {
    Json param = {
        {"name", p.name},
        {"type", std::string(core::ToString(p.distribution))},
        {"log", p.distribution == core::Distribution::kLogUniform ||
                    p.distribution == core::Distribution::kLogRandInt}};
    if (p.values.empty()) {
      param["low"] = p.low;
      param["high"] = p.high;
    } else {
      Json values = Json::array();
      for (const auto& v : p.values) {
        std::visit([&values](const auto& x) { values.push_back(x); }, v);
      }
      param["values"] = values;
    }
    out.push_back(param);
  }
  return out;
}

}  // namespace

Response Api::ListExperiments(const Query& query) const {
  auto store = stores_.Borrow();
  if (!store.ok()) return ErrorResponse(store.error());
  std::string format = FormatOf(query);
  auto it = query.find("name");
  std::string name = it == query.end() ? "" : it->second;
  if (format == "table" || format == "csv") {
    return Text(StatusText(*store.value(), name, format, "this server"),
                format);
  }
  if (format != "json") return ErrorResponse(400, "format: json, table or csv");
  std::vector<ExperimentRecord> all;
  if (name.empty()) {
    auto listed = store.value()->experiments().List();
    if (!listed.ok()) return ErrorResponse(listed.error());
    all = std::move(listed).value();
  } else {
    auto one = FindExperimentIn(*store.value(), name, "this server");
    if (!one.ok()) return ErrorResponse(one.error());
    all.push_back(std::move(one).value());
  }
  auto running = control_.Running();
  Json out = Json::array();
  for (const auto& e : all) {
    out.push_back(Summary(*store.value(), e, running));
  }
  return JsonResponse(200, out.dump() + "\n");
}

Response Api::GetExperiment(const std::string& name) const {
  auto store = stores_.Borrow();
  if (!store.ok()) return ErrorResponse(store.error());
  auto e = FindExperimentIn(*store.value(), name, "this server");
  if (!e.ok()) return ErrorResponse(e.error());
  Json out = Summary(*store.value(), e.value(), control_.Running());
  // Env values may be secrets: see them with the CLI on the database.
  out["config"] = RedactedConfig(e.value().config_json);
  out["space"] = SpaceJson(e.value().config_json);
  return JsonResponse(200, out.dump() + "\n");
}

Response Api::GetTrials(const std::string& name, const Query& query) const {
  auto store = stores_.Borrow();
  if (!store.ok()) return ErrorResponse(store.error());
  auto e = FindExperimentIn(*store.value(), name, "this server");
  if (!e.ok()) return ErrorResponse(e.error());
  std::string format = FormatOf(query);
  return Text(TrialsText(*store.value(), e.value(), {format, options_.db_path}),
              format);
}

Response Api::GetReports(const std::string& name, const Query& query) const {
  auto store = stores_.Borrow();
  if (!store.ok()) return ErrorResponse(store.error());
  auto e = FindExperimentIn(*store.value(), name, "this server");
  if (!e.ok()) return ErrorResponse(e.error());
  std::string format = FormatOf(query);
  return Text(ReportsText(*store.value(), e.value(), format), format);
}

Response Api::GetBest(const std::string& name, const Query& query) const {
  auto store = stores_.Borrow();
  if (!store.ok()) return ErrorResponse(store.error());
  auto e = FindExperimentIn(*store.value(), name, "this server");
  if (!e.ok()) return ErrorResponse(e.error());
  int64_t top = 1;
  if (auto it = query.find("top"); it != query.end()) {
    auto given = IntegerIn(it->second, 1, kMaxTop);
    if (!given) {
      return ErrorResponse(
          400, "top: a number from 1 to " + std::to_string(kMaxTop));
    }
    top = *given;
  }
  BestQuery best;
  best.top = top;
  best.listing = {FormatOf(query), options_.db_path};
  if (auto it = query.find("by"); it != query.end()) {
    if (it->second != "last" && it->second != "best") {
      return ErrorResponse(400, "by: last or best");
    }
    if (it->second == "best") best.by = storage::BestBy::kBest;
  }
  return Text(BestText(*store.value(), e.value(), best), best.listing.format);
}

Response Api::GetTrial(int64_t id, const Query& query) const {
  // One page of reports, so that a trial with millions of them does not
  // make an answer of gigabytes.
  constexpr int64_t kMaxPage = 10000;
  int64_t after = 0;
  int64_t limit = kMaxPage;
  if (auto it = query.find("after"); it != query.end()) {
    auto given = IntegerIn(it->second, 0, INT64_MAX);
    if (!given) return ErrorResponse(400, "after: a report's seq (0 or more)");
    after = *given;
  }
  if (auto it = query.find("limit"); it != query.end()) {
    auto given = IntegerIn(it->second, 1, kMaxPage);
    if (!given) return ErrorResponse(400, "limit: a number from 1 to 10000");
    limit = *given;
  }
  auto store = stores_.Borrow();
  if (!store.ok()) return ErrorResponse(store.error());
  auto trial = store.value()->trials().Find(id);
  if (!trial.ok()) return ErrorResponse(trial.error());
  if (!trial.value()) {
    return ErrorResponse(404, "no trial " + std::to_string(id));
  }
  auto reports = store.value()->reports().List(id, after, limit + 1);
  if (!reports.ok()) return ErrorResponse(reports.error());
  bool more = static_cast<int64_t>(reports.value().size()) > limit;
  if (more) reports.value().pop_back();
  Json out = TrialJson(*trial.value(), UnixNow());
  std::string experiment;
  if (auto all = store.value()->experiments().List(); all.ok()) {
    for (const auto& e : all.value()) {
      if (e.id == trial.value()->experiment_id) experiment = e.name;
    }
  }
  out["experiment"] = experiment;
  Json list = Json::array();
  for (const auto& r : reports.value()) {
    Json metrics = Json::object();
    for (const auto& [key, value] : r.metrics) metrics[key] = JsonNumber(value);
    list.push_back({{"seq", r.seq},
                    {"attempt", r.attempt},
                    {"time", JsonNumber(r.time)},
                    {"value", JsonNumber(r.value)},
                    {"metrics", metrics}});
  }
  out["reports"] = list;
  // The `after` of the next page; null on the last one.
  out["next_after"] = more ? Json(reports.value().back().seq) : Json();
  return JsonResponse(200, out.dump() + "\n");
}

}  // namespace tuner::server
