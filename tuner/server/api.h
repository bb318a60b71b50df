// Api: the service's HTTP API as a function from request to response. It
// knows no sockets (http_server.cc does), so tests can call it directly.
#ifndef TUNER_TUNER_SERVER_API_H_
#define TUNER_TUNER_SERVER_API_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tuner/core/result.h"
#include "tuner/experiment_config.h"
#include "tuner/server/event_bus.h"
#include "tuner/server/experiment_hub.h"
#include "tuner/server/store_pool.h"

namespace tuner::server {

struct Request {
  std::string method;  // GET, POST, ...
  std::string target;  // path and query: /api/experiments?x=1
  std::string body;
  std::string authorization;  // the Authorization header
  std::string last_event_id;  // the Last-Event-ID header
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
// Each call returns once the hub has acted.
class Control {
 public:
  virtual ~Control() = default;
  virtual core::Status Submit(const ExperimentConfig& config,
                              const std::string& stored_json) = 0;
  virtual core::Status Stop(const std::string& name, bool force) = 0;
  virtual core::Status Resume(const std::string& name) = 0;
  virtual std::vector<RunningInfo> Running() const = 0;
};

// Static files of the dashboard, by path ("/", "/app.js").
struct Asset {
  std::string content_type;
  std::string body;
};

class Api {
 public:
  struct Options {
    std::string db_path;               // trial logs live next to it
    std::optional<std::string> token;  // required by mutating requests
    std::string default_base_dir;      // for relative paths in a submitted
                                       // config without ?base=
    int devices_total = 0;             // for /metrics
    std::string devices_kind;
  };

  Api(StorePool& stores, EventBus& bus, Control& control, Options options,
      std::map<std::string, Asset> assets = {})
      : stores_(stores),
        bus_(bus),
        control_(control),
        options_(std::move(options)),
        assets_(std::move(assets)) {}

  // Never throws; every error is a JSON {"error": "..."} with its status.
  Response Handle(const Request& request) const;

 private:
  using Query = std::map<std::string, std::string>;
  Response Route(const Request& request, const std::vector<std::string>& path,
                 const Query& query) const;
  Response RouteExperiment(const Request& request,
                           const std::vector<std::string>& path,
                           const Query& query) const;
  Response RouteTrial(const Request& request,
                      const std::vector<std::string>& path,
                      const Query& query) const;
  // GET (api_queries.cc)
  Response ListExperiments(const Query& query) const;
  Response GetExperiment(const std::string& name) const;
  Response GetTrials(const std::string& name, const Query& query) const;
  Response GetBest(const std::string& name, const Query& query) const;
  Response GetCurves(const std::string& name) const;
  Response GetLeases(const std::string& name) const;
  Response GetTrial(int64_t id) const;
  Response GetLog(int64_t id, const Query& query) const;  // api_log.cc
  Response Metrics() const;                               // api_metrics.cc
  // POST (api_control.cc)
  Response Submit(const Request& request, const Query& query) const;
  Response Stop(const std::string& name, const Query& query) const;
  Response Resume(const std::string& name) const;
  bool Authorized(const Request& request) const;

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
// Splits "/a/b?x=1&y=%20" into path segments and decoded query values;
// nullopt when the target is malformed (bad escapes, "..").
std::optional<
    std::pair<std::vector<std::string>, std::map<std::string, std::string>>>
ParseTarget(const std::string& target);
// Equal strings, in time that does not depend on where they differ.
bool ConstantTimeEquals(const std::string& a, const std::string& b);

}  // namespace tuner::server

#endif  // TUNER_TUNER_SERVER_API_H_
