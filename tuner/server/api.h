// Api: the service's HTTP API as a function from request to response. It
// knows no sockets (http_server.cc does), so tests can call it directly.
#ifndef TUNER_TUNER_SERVER_API_H_
#define TUNER_TUNER_SERVER_API_H_

#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "tuner/config/experiment_config.h"
#include "tuner/server/event_bus.h"
#include "tuner/server/experiment_hub.h"
#include "tuner/server/store_pool.h"
#include "tuner/sweep/experiment_lifecycle.h"

namespace tuner::server {

struct Request {
  std::string method;  // GET, POST, ...
  std::string target;  // path and query: /api/experiments?x=1
  std::string body;
  std::string authorization;  // the Authorization header
  std::string last_event_id;  // the Last-Event-ID header
  std::string host;           // the Host header, as sent ("127.0.0.1:8080")
  std::string origin;         // the Origin header; "" when absent
  std::string content_type;   // the Content-Type header
};

struct Response {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  // An event stream (GET /api/events): the server streams the bus's events
  // with id > events_after, then waits for more.
  bool event_stream = false;
  int64_t events_after = 0;
};

// What mutating requests ask of the experiments, on the sweeps' thread.
// Each call returns at once, without waiting for the hub; `done` is called
// once the hub has acted (exactly once, on another thread, or never when
// the service stops first).
class Control {
 public:
  using Done = std::function<void(core::Status)>;
  virtual ~Control() = default;
  virtual void Submit(ExperimentConfig config, std::string stored_json,
                      Done done) = 0;
  virtual void Stop(const std::string& name, bool force, Done done) = 0;
  virtual void Resume(const std::string& name, Done done) = 0;
  virtual std::vector<RunningInfo> Running() const = 0;
  // The experiment life cycle (ExperimentHub::Delete, Extend): `done` gets
  // what was done or why not, as Done does. A control without them refuses.
  using DeleteDone = std::function<void(core::Result<DeleteOutcome>)>;
  using ExtendDone = std::function<void(core::Result<ExtendOutcome>)>;
  virtual void Delete(const std::string& name, DeleteDone done) {
    (void)name;
    done(core::Internal("this service cannot delete experiments"));
  }
  virtual void Extend(const std::string& name, int64_t trials,
                      ExtendDone done) {
    (void)name, (void)trials;
    done(core::Internal("this service cannot extend experiments"));
  }
  // Runs `work` on a thread that serves no HTTP connection (parsing a
  // submitted config), soon and exactly once, or never when the service
  // stops first. A control without such a thread may run it at once.
  virtual void Offload(std::function<void()> work) = 0;
};

// Static files of the dashboard, by path ("/", "/app.js").
struct Asset {
  std::string content_type;
  std::string body;
};

class Api {
 public:
  struct Options {
    std::string db_path;  // trial logs live next to it
    // Required by every mutating request (POST, PUT, DELETE ...), and by
    // reads when `token_for_reads`; without one, mutations are refused.
    std::optional<std::string> token;
    bool token_for_reads = false;  // set when not bound to loopback
    // The names a request's Host may give (without the port, lower case):
    // the bound address, localhost and --allow-host names. Anything else is
    // refused with 403 (DNS rebinding). With `any_ip_host` (bound to 0.0.0.0
    // or ::), any IP literal is accepted too: only a name can be rebound.
    std::vector<std::string> allowed_hosts = {"localhost", "127.0.0.1", "::1"};
    bool any_ip_host = false;
    std::string default_base_dir;  // for relative paths in a submitted
                                   // config without ?base=
    int devices_total = 0;         // for /metrics
    std::string devices_kind;
    // The first curves read of an experiment sends every report up to
    // this many; past it, each trial's thinned by time step (the
    // overview: TrialStore::ListCurvesSince).
    int64_t overview_above = 5000;
  };

  Api(StorePool& stores, EventBus& bus, Control& control, Options options,
      std::map<std::string, Asset> assets = {})
      : stores_(stores),
        bus_(bus),
        control_(control),
        options_(std::move(options)),
        assets_(std::move(assets)) {}

  using Reply = std::function<void(Response)>;
  // Answers `request` through `reply`, called exactly once: before Handle
  // returns for reads and refusals, later and from the thread that acted
  // for mutations (so that no caller's thread waits on the experiments),
  // or never when the service stops first. Never throws; every error is a
  // JSON {"error": "..."} with its status.
  void Handle(const Request& request, Reply reply) const;

 private:
  using Query = std::map<std::string, std::string>;
  // nullopt when the answer goes to `reply` later.
  std::optional<Response> Route(const Request& request,
                                const std::vector<std::string>& path,
                                const Query& query, const Reply& reply) const;
  std::optional<Response> RouteExperiment(const Request& request,
                                          const std::vector<std::string>& path,
                                          const Query& query,
                                          const Reply& reply) const;
  Response RouteTrial(const Request& request,
                      const std::vector<std::string>& path,
                      const Query& query) const;
  // GET (api_queries.cc)
  Response ListExperiments(const Query& query) const;
  Response GetExperiment(const std::string& name) const;
  Response GetTrials(const std::string& name, const Query& query) const;
  Response GetBest(const std::string& name, const Query& query) const;
  // Every report of the experiment: ?format=table|csv|json|jsonl (json).
  Response GetReports(const std::string& name, const Query& query) const;
  // ?since=T: only what changed after T (a previous answer's "cursor");
  // ?metric=NAME: that stored metric instead of the objective.
  Response GetCurves(const std::string& name, const Query& query) const;
  // ?since=T: {"cursor", "leases"} with only the leases changed after T.
  Response GetLeases(const std::string& name, const Query& query) const;
  Response GetTrial(int64_t id, const Query& query) const;
  Response GetLog(int64_t id, const Query& query) const;  // api_log.cc
  Response Metrics() const;                               // api_metrics.cc
  // POST (api_control.cc): nullopt when the answer goes to `reply` later.
  std::optional<Response> Submit(const Request& request, const Query& query,
                                 const Reply& reply) const;
  void Stop(const std::string& name, const Query& query,
            const Reply& reply) const;
  void Resume(const std::string& name, const Reply& reply) const;
  // POST .../delete and .../extend?trials=N (api_lifecycle.cc).
  void Delete(const std::string& name, const Reply& reply) const;
  std::optional<Response> Extend(const std::string& name, const Query& query,
                                 const Reply& reply) const;
  // The checks before routing (api_guard.cc): Host, Origin, content type
  // and token. nullopt when the request may go on.
  std::optional<Response> Guard(const Request& request,
                                const std::vector<std::string>& path,
                                const Query& query) const;
  bool HostAllowed(const std::string& host) const;
  // The 401 for a change without the right token: says whether a token
  // was sent and was wrong, or none was sent.
  Response Unauthorized(const Request& request) const;
  bool Authorized(const Request& request, const Query& query,
                  bool allow_query_token) const;

  StorePool& stores_;
  EventBus& bus_;
  Control& control_;
  Options options_;
  std::map<std::string, Asset> assets_;
};

// Helpers shared by the handlers (api_util.cc).
Response JsonResponse(int status, const std::string& body);
Response ErrorResponse(int status, const std::string& message);
// The HTTP status for an error code.
int HttpStatus(const core::Error& error);
// The error answer for `error`: its message, with HttpStatus(error).
Response ErrorResponse(const core::Error& error);
// Splits "/a/b?x=1&y=%20" into path segments and decoded query values;
// nullopt when the target is malformed (bad escapes, "..", a query
// parameter given twice).
std::optional<
    std::pair<std::vector<std::string>, std::map<std::string, std::string>>>
ParseTarget(const std::string& target);
// A stored config as the API shows it: every `env:` value, in the stored
// YAML and in the JSON, replaced by "***" (api_redact.cc).
nlohmann::ordered_json RedactedConfig(const std::string& config_json);
// Equal strings, in time that does not depend on where they differ.
bool ConstantTimeEquals(const std::string& a, const std::string& b);
// The host name of a Host header ("[::1]:80" -> "::1", "Local:8" ->
// "local"); "" when it is malformed.
std::string HostName(const std::string& host_header);
// An integer in a request (a query value, a path segment) from low to high,
// written in decimal as the CLI and the config take it
// (core::IsDecimalInteger: no "010", "+1", "1e3"); nullopt otherwise.
std::optional<int64_t> IntegerIn(const std::string& text, int64_t low,
                                 int64_t high);
// The same for a number that may have a fraction (a time): written in
// decimal as the CLI and the config take it (core::IsDecimalNumber: no
// "0x10", "+5", " 5", "inf"), from low to high; nullopt otherwise.
std::optional<double> NumberIn(const std::string& text, double low,
                               double high);
// Whether a method changes something (anything but GET, HEAD, OPTIONS).
bool IsMutation(const std::string& method);

}  // namespace tuner::server

#endif  // TUNER_TUNER_SERVER_API_H_
