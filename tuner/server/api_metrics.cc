// GET /metrics: the Prometheus text format (version 0.0.4). Nothing here
// reads the database: counters come from memory (service_metrics.h), the
// devices from the hub's snapshot, so a scrape costs the same on a
// database of any size.
#include "tuner/server/api.h"
#include "tuner/server/build_info.h"
#include "tuner/server/prometheus_text.h"

namespace tuner::server {

namespace {

void WriteBuildInfo(PrometheusText& out) {
  out.Family("tuner_build_info", "gauge",
             "Always 1; the labels say which tuner serves.");
  out.Sample("tuner_build_info",
             {{"version", std::string(BuildVersion())},
              {"commit", std::string(BuildCommit())}},
             1);
}

void WriteDevices(PrometheusText& out, const std::vector<RunningInfo>& running,
                  const std::string& kind, int total) {
  out.Family("tuner_devices", "gauge", "Devices of the machine.");
  out.Sample("tuner_devices", {{"kind", kind}}, total);
  out.Family("tuner_devices_held", "gauge",
             "Devices held by each running experiment's trials.");
  int held = 0;
  for (const auto& r : running) {
    out.Sample("tuner_devices_held", {{"experiment", r.name}}, r.held_devices);
    held += r.held_devices;
  }
  out.Family("tuner_device_occupancy", "gauge",
             "Fraction of the devices held by trials.");
  out.Sample("tuner_device_occupancy", {},
             total > 0 ? static_cast<double>(held) / total : 0.0);
  out.Family("tuner_experiments_running", "gauge",
             "Experiments running in the service.");
  out.Sample("tuner_experiments_running", {},
             static_cast<double>(running.size()));
}

}  // namespace

Response Api::Metrics() const {
  PrometheusText out;
  WriteBuildInfo(out);
  bus_.metrics().Write(out);
  WriteDevices(out, control_.Running(), options_.devices_kind,
               options_.devices_total);
  Response r;
  r.content_type = "text/plain; version=0.0.4; charset=utf-8";
  r.body = out.text();
  return r;
}

}  // namespace tuner::server
