// The API's reads: experiments, trials, the best ones, curves, leases.
#include <chrono>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "tuner/config/stored_config.h"
#include "tuner/server/api.h"
#include "tuner/text/query_text.h"
#include "tuner/text/reports_text.h"
#include "tuner/text/trial_format.h"

namespace tuner::server {

namespace {

using Json = nlohmann::ordered_json;
using storage::ExperimentId;
using storage::ExperimentRecord;
using storage::TrialStore;

Json Finite(std::optional<double> x) {
  return x && std::isfinite(*x) ? Json(*x) : Json();
}

Response Failure(const core::Error& error) {
  return ErrorResponse(HttpStatus(error), error.message);
}

Response Text(const core::Result<std::string>& text,
              const std::string& format) {
  if (!text.ok()) return Failure(text.error());
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
  auto config = LoadStoredConfig(config_json);
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

// ?since=: absent is -inf (everything); nullopt when it is not a number.
std::optional<double> SinceOf(const std::map<std::string, std::string>& query) {
  auto it = query.find("since");
  if (it == query.end()) return -std::numeric_limits<double>::infinity();
  char* end = nullptr;
  double since = std::strtod(it->second.c_str(), &end);
  if (it->second.empty() || *end != '\0' || !std::isfinite(since)) {
    return std::nullopt;
  }
  return since;
}

// The `since` of the next incremental read. Rows are stamped when written
// and seen once committed (the sweep commits as soon as the handler that
// wrote them returns), so the next read starts a little before this one:
// the reader gets the rows of that overlap twice and merges them by key.
double CursorNow() {
  constexpr double kOverlapSeconds = 3;
  auto now = std::chrono::system_clock::now().time_since_epoch();
  return std::chrono::duration<double>(now).count() - kOverlapSeconds;
}

// A metric name the curves may plot: it goes into a JSON path.
bool IsMetricName(const std::string& name) {
  if (name.empty() || name.size() > 128) return false;
  for (unsigned char c : name) {
    if (c < 0x20 || c == 0x7f || c == '"' || c == '\\') return false;
  }
  return true;
}

// Appends `value` to the column `name` of `columns`, which holds `row`
// values so far (a column new at this row starts with nulls).
void AppendCell(Json& columns, const std::string& name, Json value,
                size_t row) {
  Json& column = columns[name];
  if (column.is_null()) column = Json::array();
  while (column.size() < row) column.push_back(nullptr);
  column.push_back(std::move(value));
}

// The trial rows (the fields of `tuner trials --format json`) as columns,
// one array per field and `params` one array per param (null where a trial
// lacks it): the keys are written once, not once per trial.
Json TrialColumns(const std::vector<storage::TrialRecord>& trials) {
  Json out = Json::object();
  Json params = Json::object();
  for (size_t row = 0; row < trials.size(); ++row) {
    Json fields = TrialJson(trials[row]);
    for (auto& [key, value] : fields.items()) {
      if (key != "params") {
        AppendCell(out, key, std::move(value), row);
        continue;
      }
      for (auto& [name, v] : value.items()) {
        AppendCell(params, name, std::move(v), row);
      }
    }
  }
  for (auto& [name, column] : params.items()) {
    while (column.size() < trials.size()) column.push_back(nullptr);
  }
  out["params"] = std::move(params);
  return out;
}

// The reports as columns (one array per field, a report per index): a few
// arrays of numbers instead of an array per report, which is what makes a
// 160,000-report answer cheap to build and to parse.
Json PointColumns(const std::vector<storage::CurvePoint>& points) {
  Json trial = Json::array(), time = Json::array(), value = Json::array(),
       at = Json::array(), seq = Json::array();
  for (const auto& p : points) {
    if (!p.time || !p.value || !std::isfinite(*p.value)) continue;
    trial.push_back(p.trial);
    time.push_back(*p.time);
    value.push_back(*p.value);
    at.push_back(p.created_at);
    seq.push_back(p.seq);
  }
  return {{"trial", std::move(trial)},
          {"time", std::move(time)},
          {"value", std::move(value)},
          {"reported_at", std::move(at)},
          {"seq", std::move(seq)}};
}

// The rung decisions as columns (trial, rung, milestone, verdict).
Json DecisionColumns(const std::vector<storage::DecisionRecord>& decisions) {
  Json trial = Json::array(), rung = Json::array(), milestone = Json::array(),
       verdict = Json::array();
  for (const auto& d : decisions) {
    trial.push_back(d.trial);
    rung.push_back(d.decision.rung);
    milestone.push_back(d.decision.milestone);
    verdict.push_back(std::string(core::ToString(d.decision.verdict)));
  }
  return {{"trial", std::move(trial)},
          {"rung", std::move(rung)},
          {"milestone", std::move(milestone)},
          {"verdict", std::move(verdict)}};
}

// The metrics a trial reported (from its first report), so the page can
// offer them; the last trial with points stands for the experiment.
Json MetricNames(TrialStore& store,
                 const std::vector<storage::CurvePoint>& points) {
  Json out = Json::array();
  if (points.empty()) return out;
  auto reports = store.ListReports(points.back().trial, -1, 1);
  if (!reports.ok() || reports.value().empty()) return out;
  for (const auto& [key, value] : reports.value().front().metrics) {
    out.push_back(key);
  }
  return out;
}

}  // namespace

Response Api::ListExperiments(const Query& query) const {
  auto store = stores_.Borrow();
  if (!store.ok()) return Failure(store.error());
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
    auto listed = store.value()->ListExperiments();
    if (!listed.ok()) return Failure(listed.error());
    all = std::move(listed).value();
  } else {
    auto one = FindExperimentIn(*store.value(), name, "this server");
    if (!one.ok()) return Failure(one.error());
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
  if (!store.ok()) return Failure(store.error());
  auto e = FindExperimentIn(*store.value(), name, "this server");
  if (!e.ok()) return Failure(e.error());
  Json out = Summary(*store.value(), e.value(), control_.Running());
  // Env values may be secrets: see them with the CLI on the database.
  out["config"] = RedactedConfig(e.value().config_json);
  out["space"] = SpaceJson(e.value().config_json);
  return JsonResponse(200, out.dump() + "\n");
}

Response Api::GetTrials(const std::string& name, const Query& query) const {
  auto store = stores_.Borrow();
  if (!store.ok()) return Failure(store.error());
  auto e = FindExperimentIn(*store.value(), name, "this server");
  if (!e.ok()) return Failure(e.error());
  std::string format = FormatOf(query);
  return Text(TrialsText(*store.value(), e.value(), {format, options_.db_path}),
              format);
}

Response Api::GetReports(const std::string& name, const Query& query) const {
  auto store = stores_.Borrow();
  if (!store.ok()) return Failure(store.error());
  auto e = FindExperimentIn(*store.value(), name, "this server");
  if (!e.ok()) return Failure(e.error());
  std::string format = FormatOf(query);
  return Text(ReportsText(*store.value(), e.value(), format), format);
}

Response Api::GetBest(const std::string& name, const Query& query) const {
  auto store = stores_.Borrow();
  if (!store.ok()) return Failure(store.error());
  auto e = FindExperimentIn(*store.value(), name, "this server");
  if (!e.ok()) return Failure(e.error());
  int64_t top = 1;
  if (auto it = query.find("top"); it != query.end()) {
    char* end = nullptr;
    top = std::strtoll(it->second.c_str(), &end, 10);
    if (it->second.empty() || *end != '\0' || top < 1 || top > 100000) {
      return ErrorResponse(400, "top: a number from 1 to 100000");
    }
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

Response Api::GetCurves(const std::string& name, const Query& query) const {
  auto since = SinceOf(query);
  if (!since) return ErrorResponse(400, "since: a time (a previous cursor)");
  std::string metric;
  if (auto it = query.find("metric"); it != query.end()) {
    metric = it->second;
    if (!IsMetricName(metric)) {
      return ErrorResponse(400,
                           "metric: a stored metric's name (1 to 128 "
                           "printable characters, no quotes or backslashes)");
    }
  }
  double cursor = CursorNow();
  auto store = stores_.Borrow();
  if (!store.ok()) return Failure(store.error());
  auto e = FindExperimentIn(*store.value(), name, "this server");
  if (!e.ok()) return Failure(e.error());
  ExperimentId id = e.value().id;
  auto trials = store.value()->ListTrialsChangedSince(id, *since);
  // The first read (no ?since=) is the overview: a few points a trial.
  bool overview = !std::isfinite(*since);
  auto points = store.value()->ListCurvesSince(id, *since, metric, overview);
  auto decisions = store.value()->ListDecisionsSince(id, *since);
  if (!trials.ok()) return Failure(trials.error());
  if (!points.ok()) return Failure(points.error());
  if (!decisions.ok()) return Failure(decisions.error());
  Json out = {{"name", e.value().name},
              {"metric", e.value().metric},
              {"shown", metric.empty() ? e.value().metric : metric},
              {"mode", e.value().mode == core::Mode::kMax ? "max" : "min"},
              {"time_attr", e.value().time_attr},
              {"since", Finite(*since)},
              {"cursor", cursor},
              {"overview", overview},
              {"trials", TrialColumns(trials.value())},
              {"points", PointColumns(points.value())},
              {"decisions", DecisionColumns(decisions.value())}};
  if (!std::isfinite(*since)) {
    out["metrics"] = MetricNames(*store.value(), points.value());
  }
  return JsonResponse(200, out.dump() + "\n");
}

Response Api::GetLeases(const std::string& name, const Query& query) const {
  auto since = SinceOf(query);
  if (!since) return ErrorResponse(400, "since: a time (a previous cursor)");
  double cursor = CursorNow();
  auto store = stores_.Borrow();
  if (!store.ok()) return Failure(store.error());
  auto e = FindExperimentIn(*store.value(), name, "this server");
  if (!e.ok()) return Failure(e.error());
  auto leases = store.value()->ListLeasesSince(e.value().id, *since);
  if (!leases.ok()) return Failure(leases.error());
  Json out = Json::array();
  for (const auto& l : leases.value()) {
    out.push_back({{"id", l.id},
                   {"trial", l.trial},
                   {"attempt", l.attempt},
                   {"kind", l.kind},
                   {"devices", l.devices},
                   {"cpus", l.cpus},
                   {"acquired_at", l.acquired_at},
                   {"released_at", Finite(l.released_at)}});
  }
  // Without ?since= the plain list, as before incremental reads existed.
  if (!std::isfinite(*since)) return JsonResponse(200, out.dump() + "\n");
  Json answer = {{"since", *since}, {"cursor", cursor}, {"leases", out}};
  return JsonResponse(200, answer.dump() + "\n");
}

Response Api::GetTrial(int64_t id, const Query& query) const {
  // One page of reports, so that a trial with millions of them does not
  // make an answer of gigabytes.
  constexpr int64_t kMaxPage = 10000;
  int64_t after = 0;
  int64_t limit = kMaxPage;
  if (auto it = query.find("after"); it != query.end()) {
    char* end = nullptr;
    after = std::strtoll(it->second.c_str(), &end, 10);
    if (it->second.empty() || *end != '\0' || after < 0) {
      return ErrorResponse(400, "after: a report's seq (0 or more)");
    }
  }
  if (auto it = query.find("limit"); it != query.end()) {
    char* end = nullptr;
    limit = std::strtoll(it->second.c_str(), &end, 10);
    if (it->second.empty() || *end != '\0' || limit < 1 || limit > kMaxPage) {
      return ErrorResponse(400, "limit: a number from 1 to 10000");
    }
  }
  auto store = stores_.Borrow();
  if (!store.ok()) return Failure(store.error());
  auto trial = store.value()->FindTrial(id);
  if (!trial.ok()) return Failure(trial.error());
  if (!trial.value()) {
    return ErrorResponse(404, "no trial " + std::to_string(id));
  }
  auto reports = store.value()->ListReports(id, after, limit + 1);
  if (!reports.ok()) return Failure(reports.error());
  bool more = static_cast<int64_t>(reports.value().size()) > limit;
  if (more) reports.value().pop_back();
  Json out = TrialJson(*trial.value());
  std::string experiment;
  if (auto all = store.value()->ListExperiments(); all.ok()) {
    for (const auto& e : all.value()) {
      if (e.id == trial.value()->experiment_id) experiment = e.name;
    }
  }
  out["experiment"] = experiment;
  Json list = Json::array();
  for (const auto& r : reports.value()) {
    Json metrics = Json::object();
    for (const auto& [key, value] : r.metrics) metrics[key] = Finite(value);
    list.push_back({{"seq", r.seq},
                    {"attempt", r.attempt},
                    {"time", Finite(r.time)},
                    {"value", Finite(r.value)},
                    {"metrics", metrics}});
  }
  out["reports"] = list;
  // The `after` of the next page; null on the last one.
  out["next_after"] = more ? Json(reports.value().back().seq) : Json();
  return JsonResponse(200, out.dump() + "\n");
}

}  // namespace tuner::server
