// The dashboard's reads: learning curves and leases, in full (the first
// read: an overview of each curve) or only what changed since a cursor.
#include <chrono>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>

#include "tuner/base/clock.h"
#include "tuner/server/api.h"
#include "tuner/text/number_text.h"
#include "tuner/text/query_text.h"
#include "tuner/text/trial_format.h"
#include "util/utf8_text.h"

namespace tuner::server {

namespace {

using Json = nlohmann::ordered_json;
using storage::ExperimentId;
using storage::TrialStore;

// ?since=: absent is -inf (everything); nullopt when it is not a number
// written in decimal (NumberIn).
std::optional<double> SinceOf(const std::map<std::string, std::string>& query) {
  auto it = query.find("since");
  if (it == query.end()) return -std::numeric_limits<double>::infinity();
  return NumberIn(it->second, std::numeric_limits<double>::lowest(),
                  std::numeric_limits<double>::max());
}

// The `since` of the next incremental read. Rows are stamped when written
// and seen once committed (the sweep commits as soon as the handler that
// wrote them returns), so the next read starts a little before this one:
// the reader gets the rows of that overlap twice and merges them by key.
double CursorNow() {
  constexpr double kOverlapSeconds = 3;
  return UnixNow() - kOverlapSeconds;
}

// The `since` a view answered for: null when it read from the start (a
// `since` of -inf), else the cursor it was given.
Json SinceJson(double since) {
  return std::isfinite(since) ? Json(since) : Json();
}

// A metric name the curves may plot: any a report may carry (valid UTF-8,
// control characters included: the answer is JSON), except what cannot go
// into the JSON path it is read with.
bool IsMetricName(const std::string& name) {
  if (name.empty() || name.size() > 128 || !util::IsValidUtf8(name)) {
    return false;
  }
  return name.find_first_of(std::string("\"\\\0", 3)) == std::string::npos;
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
Json TrialColumns(const std::vector<storage::TrialRecord>& trials, double now) {
  Json out = Json::object();
  Json params = Json::object();
  for (size_t row = 0; row < trials.size(); ++row) {
    Json fields = TrialJson(trials[row], now);
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

// The metrics a trial reported (every key of its first 10,000 reports, in
// the order they first appear: a Trainer's eval_* keys come after its loss
// lines), so the page can offer them; the last trial with points stands
// for the experiment.
Json MetricNames(TrialStore& store,
                 const std::vector<storage::CurvePoint>& points) {
  Json out = Json::array();
  if (points.empty()) return out;
  auto reports = store.reports().List(points.back().trial, -1, 10000);
  if (!reports.ok()) return out;
  std::set<std::string> seen;
  for (const auto& report : reports.value()) {
    for (const auto& [key, value] : report.metrics) {
      if (seen.insert(key).second) out.push_back(key);
    }
  }
  return out;
}

}  // namespace

Response Api::GetCurves(const std::string& name, const Query& query) const {
  auto since = SinceOf(query);
  if (!since) return ErrorResponse(400, "since: a time (a previous cursor)");
  std::string metric;
  if (auto it = query.find("metric"); it != query.end()) {
    metric = it->second;
    if (!IsMetricName(metric)) {
      return ErrorResponse(400,
                           "metric: a stored metric's name (1 to 128 bytes "
                           "of UTF-8, no quotes or backslashes)");
    }
  }
  double cursor = CursorNow();
  auto store = stores_.Borrow();
  if (!store.ok()) return ErrorResponse(store.error());
  auto e = FindExperimentIn(*store.value(), name, "this server");
  if (!e.ok()) return ErrorResponse(e.error());
  ExperimentId id = e.value().id;
  auto feed = store.value()->Changes();
  if (!feed.ok()) return ErrorResponse(feed.error());
  auto trials = feed.value().ListTrialsChangedSince(id, *since);
  // The first read (no ?since=) is thinned when it would be big.
  bool overview = false;
  auto points = feed.value().ListCurvesSince(
      id, *since, metric,
      std::isfinite(*since) ? std::nullopt
                            : std::optional(options_.overview_above),
      &overview);
  auto decisions = feed.value().ListDecisionsSince(id, *since);
  if (!trials.ok()) return ErrorResponse(trials.error());
  if (!points.ok()) return ErrorResponse(points.error());
  if (!decisions.ok()) return ErrorResponse(decisions.error());
  Json out = {{"name", e.value().name},
              {"metric", e.value().metric},
              {"shown", metric.empty() ? e.value().metric : metric},
              {"mode", std::string(core::ToString(e.value().mode))},
              {"time_attr", e.value().time_attr},
              {"since", SinceJson(*since)},
              {"cursor", cursor},
              {"overview", overview},
              {"trials", TrialColumns(trials.value(), UnixNow())},
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
  if (!store.ok()) return ErrorResponse(store.error());
  auto e = FindExperimentIn(*store.value(), name, "this server");
  if (!e.ok()) return ErrorResponse(e.error());
  auto feed = store.value()->Changes();
  if (!feed.ok()) return ErrorResponse(feed.error());
  auto leases = feed.value().ListLeasesSince(e.value().id, *since);
  if (!leases.ok()) return ErrorResponse(leases.error());
  Json out = Json::array();
  for (const auto& l : leases.value()) {
    out.push_back({{"id", l.id},
                   {"trial", l.trial},
                   {"attempt", l.attempt},
                   {"kind", l.kind},
                   {"devices", l.devices},
                   {"cpus", l.cpus},
                   {"acquired_at", l.acquired_at},
                   {"released_at", JsonNumber(l.released_at)}});
  }
  // Without ?since= the plain list, as before incremental reads existed.
  if (!std::isfinite(*since)) return JsonResponse(200, out.dump() + "\n");
  Json answer = {{"since", *since}, {"cursor", cursor}, {"leases", out}};
  return JsonResponse(200, answer.dump() + "\n");
}

}  // namespace tuner::server
