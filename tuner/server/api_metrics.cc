// GET /metrics: the Prometheus text format (version 0.0.4).
#include <fmt/format.h>

#include "tuner/server/api.h"

namespace tuner::server {

namespace {

// A label value: backslash, double quote and newline escaped.
std::string Label(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    if (c == '\\' || c == '"') out += '\\';
    out += c;
  }
  return out;
}

void Header(std::string& out, const char* name, const char* type,
            const char* help) {
  out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
}

}  // namespace

Response Api::Metrics() const {
  auto store = stores_.Borrow();
  if (!store.ok()) return ErrorResponse(500, store.message());
  auto experiments = store.value()->ListExperiments();
  if (!experiments.ok()) return ErrorResponse(500, experiments.message());
  std::string out;
  Header(out, "tuner_trials", "gauge", "Trials by experiment and state.");
  for (const auto& e : experiments.value()) {
    auto counts = store.value()->CountTrials(e.id);
    if (!counts.ok()) continue;
    for (auto s : core::kTrialStatuses) {
      auto it = counts.value().find(s);
      out += fmt::format("tuner_trials{{experiment=\"{}\",state=\"{}\"}} {}\n",
                         Label(e.name), core::ToString(s),
                         it == counts.value().end() ? 0 : it->second);
    }
  }
  Header(out, "tuner_reports_total", "counter",
         "Metric reports judged since the service started.");
  out += fmt::format("tuner_reports_total {}\n", bus_.reports_total());
  Header(out, "tuner_reports_per_second", "gauge",
         "Reports per second over the last 10 seconds.");
  out += fmt::format("tuner_reports_per_second {:.3f}\n",
                     bus_.ReportRate(std::chrono::seconds(10)));
  Header(out, "tuner_devices", "gauge", "Devices of the machine.");
  out += fmt::format("tuner_devices{{kind=\"{}\"}} {}\n",
                     Label(options_.devices_kind), options_.devices_total);
  Header(out, "tuner_devices_held", "gauge",
         "Devices held by each running experiment's trials.");
  auto running = control_.Running();
  int held = 0;
  for (const auto& r : running) {
    out += fmt::format("tuner_devices_held{{experiment=\"{}\"}} {}\n",
                       Label(r.name), r.held_devices);
    held += r.held_devices;
  }
  Header(out, "tuner_device_occupancy", "gauge",
         "Fraction of the devices held by trials.");
  out += fmt::format("tuner_device_occupancy {:.4f}\n",
                     options_.devices_total > 0
                         ? static_cast<double>(held) / options_.devices_total
                         : 0.0);
  Header(out, "tuner_experiments_running", "gauge",
         "Experiments running in the service.");
  out += fmt::format("tuner_experiments_running {}\n", running.size());
  Response r;
  r.content_type = "text/plain; version=0.0.4; charset=utf-8";
  r.body = std::move(out);
  return r;
}

}  // namespace tuner::server
