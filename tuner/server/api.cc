// Api: routing and authorization. The handlers are in api_queries.cc,
// api_control.cc, api_log.cc and api_metrics.cc.
#include "tuner/server/api.h"

#include <nlohmann/json.hpp>

#include "tuner/config/config_values.h"

namespace tuner::server {

namespace {

Response NotFound() { return ErrorResponse(404, "no such endpoint"); }

Response MethodNotAllowed(const std::string& allowed) {
  Response r = ErrorResponse(405, "method not allowed; use " + allowed);
  r.headers.emplace_back("Allow", allowed);
  return r;
}

}  // namespace

void Api::Handle(const Request& request, Reply reply) const {
  auto target = ParseTarget(request.target);
  if (!target) return reply(ErrorResponse(400, "malformed request target"));
  std::optional<Response> now;
  try {
    now = Route(request, target->first, target->second, reply);
  } catch (const std::exception& e) {
    now = ErrorResponse(500, std::string("internal error: ") + e.what());
  }
  if (now) reply(std::move(*now));
}

std::optional<Response> Api::Route(const Request& request,
                                   const std::vector<std::string>& path,
                                   const Query& query,
                                   const Reply& reply) const {
  bool get = request.method == "GET";
  if (auto refused = Guard(request, path, query)) return *refused;
  if (path.empty() || (path.size() == 1 && assets_.count("/" + path[0]))) {
    std::string key = path.empty() ? "/" : "/" + path[0];
    auto it = assets_.find(key);
    if (it == assets_.end()) return NotFound();
    if (!get) return MethodNotAllowed("GET");
    Response r;
    r.content_type = it->second.content_type;
    r.body = it->second.body;
    // The dashboard loads nothing but its own files and this API.
    r.headers.emplace_back("Content-Security-Policy",
                           "default-src 'self'; img-src 'self' data:; "
                           "frame-ancestors 'none'");
    return r;
  }
  if (path.size() == 1 && path[0] == "healthz") {
    if (!get) return MethodNotAllowed("GET");
    nlohmann::json body = {{"ok", true},
                           {"running", control_.Running().size()}};
    return JsonResponse(200, body.dump() + "\n");
  }
  if (path.size() == 1 && path[0] == "metrics") {
    return get ? Metrics() : MethodNotAllowed("GET");
  }
  if (path[0] != "api" || path.size() < 2) return NotFound();
  if (path[1] == "events" && path.size() == 2) {
    if (!get) return MethodNotAllowed("GET");
    Response r;
    r.event_stream = true;
    r.content_type = "text/event-stream";
    std::string after = !request.last_event_id.empty()
                            ? request.last_event_id
                            : (query.count("since") ? query.at("since") : "");
    r.events_after = IntegerIn(after, 0, INT64_MAX).value_or(bus_.last_id());
    return r;
  }
  if (path[1] == "experiments") {
    return RouteExperiment(request, path, query, reply);
  }
  if (path[1] == "trials") return RouteTrial(request, path, query);
  return NotFound();
}

std::optional<Response> Api::RouteExperiment(
    const Request& request, const std::vector<std::string>& path,
    const Query& query, const Reply& reply) const {
  bool get = request.method == "GET";
  bool post = request.method == "POST";
  if (path.size() == 2) {
    if (get) return ListExperiments(query);
    if (post) return Submit(request, query, reply);
    return MethodNotAllowed("GET, POST");
  }
  const std::string& name = path[2];
  if (!config::IsName(name)) {
    return ErrorResponse(
        400, std::string("bad experiment name: ") + config::kNameRule);
  }
  if (path.size() == 3) {
    return get ? GetExperiment(name) : MethodNotAllowed("GET");
  }
  if (path.size() != 4) return NotFound();
  const std::string& verb = path[3];
  if (verb == "stop" || verb == "resume") {
    if (!post) return MethodNotAllowed("POST");
    verb == "stop" ? Stop(name, query, reply) : Resume(name, reply);
    return std::nullopt;
  }
  if (verb == "delete" || verb == "extend") {
    if (!post) return MethodNotAllowed("POST");
    if (verb == "extend") return Extend(name, query, reply);
    Delete(name, reply);
    return std::nullopt;
  }
  if (!get) {
    return verb == "trials" || verb == "best" || verb == "curves" ||
                   verb == "leases" || verb == "reports"
               ? MethodNotAllowed("GET")
               : NotFound();
  }
  if (verb == "trials") return GetTrials(name, query);
  if (verb == "best") return GetBest(name, query);
  if (verb == "reports") return GetReports(name, query);
  if (verb == "curves") return GetCurves(name, query);
  if (verb == "leases") return GetLeases(name, query);
  return NotFound();
}

Response Api::RouteTrial(const Request& request,
                         const std::vector<std::string>& path,
                         const Query& query) const {
  bool get = request.method == "GET";
  if (path.size() < 3 || path.size() > 4) return NotFound();
  auto parsed = IntegerIn(path[2], 1, INT64_MAX);
  if (!parsed) return ErrorResponse(400, "a trial id is a number from 1");
  int64_t id = *parsed;
  if (path.size() == 3) {
    return get ? GetTrial(id, query) : MethodNotAllowed("GET");
  }
  if (path[3] != "log") return NotFound();
  return get ? GetLog(id, query) : MethodNotAllowed("GET");
}

}  // namespace tuner::server
