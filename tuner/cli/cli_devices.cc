// `tuner devices`: the inventory and who holds what.
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tuner/base/small_file.h"
#include "tuner/cli/cli.h"
#include "tuner/config/config_loader.h"
#include "tuner/config/device_setup.h"
#include "util/lock_file.h"

namespace tuner::cli {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct Row {
  runner::Device device;
  std::string state;   // free | leased | busy
  std::string detail;  // the holder, or why busy
};

Row Classify(const runner::Device& device, runner::DeviceKind kind,
             const std::string& lock_dir) {
  std::string base = lock_dir + "/" + runner::LockName(kind, device);
  util::LockState lease = util::ProbeLock(base + ".lock");
  if (lease.held) return {device, "leased", lease.owner};
  if (!device.busy.empty()) return {device, "busy", device.busy};
  util::LockState reserve = util::ProbeLock(base + ".reserve");
  return {device, "free", reserve.held ? reserve.owner : ""};
}

std::string Memory(const runner::Device& d) {
  if (d.memory_total_mib < 0) return "-";
  if (d.memory_used_mib < 0) return fmt::format("{} MiB", d.memory_total_mib);
  return fmt::format("{}/{} MiB", d.memory_used_mib, d.memory_total_mib);
}

void PrintText(const runner::Inventory& inventory,
               const std::vector<Row>& rows) {
  // fputs, not fmt::print: that throws on a closed pipe (SIGPIPE is
  // ignored, main.cc).
  std::fputs(fmt::format("{}: {} device(s), from {}\n",
                         runner::ToString(inventory.kind), rows.size(),
                         inventory.source)
                 .c_str(),
             stdout);
  bool cuda = inventory.kind == runner::DeviceKind::kCuda;
  const char* index_name =
      inventory.kind == runner::DeviceKind::kNeuron ? "CHIP" : "INDEX";
  std::vector<std::vector<std::string>> table = {
      {"ID", index_name, "NAME", "BUS", "MEMORY", cuda ? "UUID" : "", "STATE"}};
  for (const auto& r : rows) {
    const auto& d = r.device;
    table.push_back(
        {std::to_string(d.id), std::to_string(d.index), d.name,
         d.bus_id.empty() ? "-" : d.bus_id, Memory(d), cuda ? d.uuid : "",
         r.state + (r.detail.empty() ? "" : " (" + r.detail + ")")});
  }
  std::vector<size_t> width(table[0].size(), 0);
  for (const auto& line : table)
    for (size_t c = 0; c < line.size(); ++c)
      width[c] = std::max(width[c], line[c].size());
  for (const auto& line : table) {
    std::string out;
    for (size_t c = 0; c < line.size(); ++c) {
      if (width[c] == 0) continue;
      out += c + 1 == line.size() ? line[c]
                                  : fmt::format("{:<{}}  ", line[c], width[c]);
    }
    std::fputs((out + "\n").c_str(), stdout);
  }
  for (const auto& warning : inventory.warnings)
    std::fputs(("warning: " + warning + "\n").c_str(), stdout);
}

void PrintJson(const runner::Inventory& inventory,
               const std::vector<Row>& rows) {
  json out = {{"kind", runner::ToString(inventory.kind)},
              {"source", inventory.source},
              {"warnings", inventory.warnings},
              {"devices", json::array()}};
  for (const auto& r : rows) {
    const auto& d = r.device;
    out["devices"].push_back({{"id", d.id},
                              {"index", d.index},
                              {"name", d.name},
                              {"bus_id", d.bus_id},
                              {"uuid", d.uuid},
                              {"memory_total_mib", d.memory_total_mib},
                              {"memory_used_mib", d.memory_used_mib},
                              {"state", r.state},
                              {"detail", r.detail}});
  }
  std::fputs((out.dump(2) + "\n").c_str(), stdout);
}

}  // namespace

int Devices(const DevicesOptions& options) {
  DevicesSpec spec;
  spec.kind = options.kind;
  std::string workdir = fs::current_path().string();
  if (options.config_path) {
    auto text = ReadSmallFile(*options.config_path, kMaxConfigBytes);
    if (!text.ok()) {
      return Fail(text.message(), kExitBadInput);
    }
    std::string base =
        fs::absolute(*options.config_path).parent_path().string();
    auto config =
        LoadConfigText(text.value(), *options.config_path, base, workdir);
    if (!config.ok()) {
      return Fail(config.message(), kExitBadInput);
    }
    spec = config.value().devices;
    workdir = config.value().workdir;
  }
  auto inventory =
      runner::DetectDevices(RequestedKind(spec), DetectOptionsFor(spec));
  if (!inventory.ok()) {
    fmt::print(stderr, "tuner: {}\n", inventory.message());
    return kExitFailure;
  }
  auto machine_lock_dir = LockDir();
  if (!options.lock_dir && !machine_lock_dir.ok()) {
    return Fail(machine_lock_dir.message(), kExitBadInput);
  }
  if (options.lock_dir &&
      (options.lock_dir->empty() || options.lock_dir->front() != '/')) {
    return Fail("--lock-dir: '" + *options.lock_dir +
                    "' is relative; give an absolute path",
                kExitBadInput);
  }
  std::string lock_dir =
      options.lock_dir ? *options.lock_dir : machine_lock_dir.value();
  std::vector<Row> rows;
  for (const auto& device : inventory.value().devices) {
    rows.push_back(Classify(device, inventory.value().kind, lock_dir));
  }
  if (options.format == "json") {
    PrintJson(inventory.value(), rows);
  } else {
    PrintText(inventory.value(), rows);
  }
  return kExitOk;
}

}  // namespace tuner::cli
