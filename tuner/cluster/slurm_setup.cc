#include "tuner/cluster/slurm_setup.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <sstream>

#include "trial_runner/slurm/slurm_command.h"
#include "trial_runner/slurm/slurm_text.h"
#include "tuner/config/device_setup.h"

namespace tuner {

namespace {

using runner::RunCommand;
using std::chrono::milliseconds;

constexpr milliseconds kQuery{60000};
constexpr milliseconds kBooking{3600000};  // waiting in the queue

// The job's state and node list ("RUNNING|n[1-2]"), or an error.
core::Result<std::pair<std::string, std::string>> JobState(
    const std::string& job, const runner::SlurmCommands& commands) {
  auto listed = RunCommand(
      {commands.squeue, "--jobs=" + job, "--noheader", "--format=%T|%N"},
      kQuery);
  if (!listed.ok()) return listed.error();
  std::string out = listed.value().out;
  size_t bar = out.find('|');
  if (!listed.value().ok() || bar == std::string::npos)
    return core::NotFound("Slurm job " + job + " is not running" +
                          (listed.value().ok()
                               ? std::string()
                               : " (" + listed.value().Why() + ")"));
  std::string nodes = out.substr(bar + 1);
  while (!nodes.empty() && (nodes.back() == '\n' || nodes.back() == ' '))
    nodes.pop_back();
  return std::make_pair(out.substr(0, bar), nodes);
}

core::Result<std::vector<std::string>> Hostnames(
    const std::string& list, const runner::SlurmCommands& commands) {
  auto expanded =
      RunCommand({commands.scontrol, "show", "hostnames", list}, kQuery);
  if (!expanded.ok()) return expanded.error();
  if (!expanded.value().ok())
    return core::Internal("scontrol show hostnames " + list + ": " +
                          expanded.value().Why());
  std::vector<std::string> nodes;
  std::istringstream lines(expanded.value().out);
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) nodes.push_back(line);
  if (nodes.empty()) return core::Internal("no node in '" + list + "'");
  return nodes;
}

core::Result<SlurmAllocation> Running(const std::string& job, bool booked,
                                      const runner::SlurmCommands& commands) {
  auto state = JobState(job, commands);
  if (!state.ok()) return state.error();
  if (state.value().first != "RUNNING")
    return core::NotFound("Slurm job " + job + " is " + state.value().first +
                          ", not RUNNING");
  auto nodes = Hostnames(state.value().second, commands);
  if (!nodes.ok()) return nodes.error();
  return SlurmAllocation{job, booked, nodes.value()};
}

// "salloc: error: ..." as it is; a hint where Slurm is not reachable.
std::string SallocError(const runner::CommandResult& result) {
  std::string why = result.Why();
  if (why.rfind("salloc", 0) != 0) why = "salloc: " + why;
  if (why.find("configuration source") != std::string::npos)
    why += " (is Slurm set up here? SLURM_CONF names its slurm.conf)";
  return why;
}

// An allocation of `job_name` left by a tuner killed while it booked (the
// caller holds the experiment's tuner lock, so no live tuner owns one): a
// running one is taken over, any other cancelled.
std::optional<SlurmAllocation> TakeOverOrphan(
    const std::string& job_name, const runner::SlurmCommands& commands) {
  auto listed = RunCommand(
      {commands.squeue, "--name=" + job_name, "--noheader", "--format=%i|%T"},
      kQuery);
  if (!listed.ok() || !listed.value().ok()) return std::nullopt;
  std::optional<SlurmAllocation> taken;
  std::istringstream lines(listed.value().out);
  for (std::string line; std::getline(lines, line);) {
    size_t bar = line.find('|');
    std::string job = line.substr(0, bar);
    if (bar == std::string::npos || !runner::ValidJobId(job)) continue;
    if (!taken && line.substr(bar + 1) == "RUNNING") {
      auto running = Running(job, true, commands);
      if (running.ok()) {
        spdlog::warn("taking over allocation {}, booked by a tuner that died",
                     job);
        taken = running.value();
        continue;
      }
    }
    spdlog::warn("cancelling job {}, booked by a tuner that died", job);
    ReleaseAllocation({job, true, {}}, commands);
  }
  return taken;
}

core::Result<SlurmAllocation> Book(const ClusterSpec& spec,
                                   const std::string& job_name,
                                   const runner::SlurmCommands& commands,
                                   const runner::KeepGoing& keep_going) {
  if (auto orphan = TakeOverOrphan(job_name, commands)) return *orphan;
  std::vector<std::string> argv = {commands.salloc, "--no-shell", "--no-kill",
                                   "--nodes=" + std::to_string(spec.nodes),
                                   "--job-name=" + job_name};
  if (spec.exclusive) argv.push_back("--exclusive");
  if (!spec.partition.empty()) argv.push_back("--partition=" + spec.partition);
  if (!spec.account.empty()) argv.push_back("--account=" + spec.account);
  if (!spec.time.empty()) argv.push_back("--time=" + spec.time);
  argv.insert(argv.end(), spec.salloc_args.begin(), spec.salloc_args.end());
  spdlog::info("booking {} node(s) with salloc", spec.nodes);
  bool told = false;
  auto watch = [&](const std::string& err) {
    size_t at = err.find("Pending job allocation ");
    if (!told && at != std::string::npos) {
      told = true;
      std::string job = err.substr(at + 23, err.find('\n', at) - at - 23);
      spdlog::info(
          "waiting for Slurm to grant allocation {} (`squeue -j {}` says "
          "why; Ctrl-C cancels it)",
          job, job);
    }
    return !keep_going || keep_going(err);
  };
  auto booked = RunCommand(argv, kBooking, watch);
  if (!booked.ok()) return booked.error();
  if (booked.value().timed_out) {
    ReleaseAllocation(
        {runner::ParseGrantedJob(booked.value().err).value_or(""), true, {}},
        commands);
    (void)TakeOverOrphan(job_name, commands);  // cancels what is left
    return core::Cancelled("booking interrupted; nothing is left queued");
  }
  auto job = runner::ParseGrantedJob(booked.value().err + booked.value().out);
  if (!booked.value().ok() || !job)
    return core::Internal(SallocError(booked.value()));
  spdlog::info("booked Slurm allocation {}", *job);
  auto allocation = Running(*job, true, commands);
  if (!allocation.ok()) ReleaseAllocation({*job, true, {}}, commands);
  return allocation;
}

std::string KindFlag(const DevicesSpec& spec) { return "--kind=" + spec.kind; }

}  // namespace

core::Result<SlurmAllocation> AcquireAllocation(
    const ClusterSpec& spec, const std::string& stored_job, bool stored_booked,
    const std::string& job_name, const runner::SlurmCommands& commands,
    const runner::KeepGoing& keep_going) {
  if (!stored_job.empty()) {
    auto running = Running(stored_job, stored_booked, commands);
    if (running.ok() || !stored_booked) return running;
    spdlog::warn("{}; booking another", running.message());
    return Book(spec, job_name, commands, keep_going);
  }
  if (!spec.job.empty()) return Running(spec.job, false, commands);
  const char* inside = std::getenv("SLURM_JOB_ID");
  if (inside && *inside) {
    if (!runner::ValidJobId(inside))
      return core::InvalidArgument(std::string("$SLURM_JOB_ID: '") + inside +
                                   "' is not a Slurm job id");
    return Running(inside, false, commands);
  }
  return Book(spec, job_name, commands, keep_going);
}

std::string AllocationName(const std::string& experiment,
                           const std::string& trials_root) {
  uint64_t hash = runner::Fnv1a64(trials_root);
  return "tuner-" + experiment.substr(0, 64) + "-" +
         fmt::format("{:08x}", static_cast<uint32_t>(hash ^ (hash >> 32)));
}

void ReleaseAllocation(const SlurmAllocation& allocation,
                       const runner::SlurmCommands& commands) {
  if (!allocation.booked || allocation.job.empty()) return;
  auto cancelled = RunCommand({commands.scancel, allocation.job}, kQuery);
  if (!cancelled.ok() || !cancelled.value().ok()) {
    spdlog::warn(
        "scancel {}: {}", allocation.job,
        cancelled.ok() ? cancelled.value().Why() : cancelled.message());
  }
}

core::Result<runner::Inventory> InventoryFromJson(const std::string& text) {
  auto doc = nlohmann::json::parse(text, nullptr, false);
  if (!doc.is_object() || !doc["devices"].is_array())
    return core::InvalidArgument("expected `tuner devices --format json`");
  auto kind = runner::ParseDeviceKind(doc.value("kind", ""));
  if (!kind) return core::InvalidArgument("unknown device kind");
  runner::Inventory inventory;
  inventory.kind = *kind;
  inventory.source = doc.value("source", "");
  try {
    for (const auto& d : doc["devices"]) {
      runner::Device device;
      device.id = d.at("id").get<int>();
      device.index = d.value("index", -1);
      device.name = d.value("name", "");
      device.bus_id = d.value("bus_id", "");
      device.uuid = d.value("uuid", "");
      device.memory_total_mib = d.value("memory_total_mib", int64_t{-1});
      device.memory_used_mib = d.value("memory_used_mib", int64_t{-1});
      if (d.value("state", "") == "busy")
        device.busy = d.value("detail", std::string("busy"));
      inventory.devices.push_back(device);
    }
  } catch (const nlohmann::json::exception& e) {
    return core::InvalidArgument(std::string("a device: ") + e.what());
  }
  return inventory;
}

core::Result<runner::DevicePool> SetUpClusterDevices(
    const DevicesSpec& spec, const SlurmAllocation& allocation,
    const std::string& tuner_path, const runner::SlurmCommands& commands,
    const runner::KeepGoing& keep_going) {
  std::vector<runner::DevicePool> pools;
  for (const auto& node : allocation.nodes) {
    if (keep_going && !keep_going(""))
      return core::Cancelled("interrupted while detecting the devices");
    std::vector<std::string> argv = {commands.srun,
                                     "--jobid=" + allocation.job,
                                     "--nodelist=" + node,
                                     "--nodes=1",
                                     "--ntasks=1",
                                     "--overlap",
                                     "--quiet",
                                     "--job-name=tuner-devices",
                                     tuner_path,
                                     "devices",
                                     KindFlag(spec),
                                     "--format=json"};
    auto detected = RunCommand(argv, kQuery);
    if (!detected.ok()) return detected.error();
    if (!detected.value().ok())
      return core::NotFound("devices on node " + node + ": " +
                            detected.value().Why());
    auto inventory = InventoryFromJson(detected.value().out);
    if (!inventory.ok())
      return core::InvalidArgument("devices on node " + node + ": " +
                                   inventory.message());
    auto pool = MakeNodePool(spec, inventory.value(), node);
    if (!pool.ok())
      return core::InvalidArgument("devices: node " + node + ": " +
                                   pool.message());
    spdlog::info("devices: node {}: {} (from {})", node,
                 pool.value().Describe(), inventory.value().source);
    pools.push_back(std::move(pool).value());
  }
  auto joined = runner::DevicePool::Join(std::move(pools));
  if (!joined.ok())
    return core::InvalidArgument("devices: " + joined.message());
  for (const auto& warning : joined.value().warnings())
    spdlog::warn("devices: {}", warning);
  return joined;
}

runner::SlurmRunnerOptions SlurmRunnerOptionsFor(
    const ClusterSpec& spec, const SlurmAllocation& allocation,
    const std::string& shim_path) {
  runner::SlurmRunnerOptions options;
  options.shim_path = shim_path;
  options.job = allocation.job;
  options.srun_args = spec.srun_args;
  options.poll = spec.poll;
  options.nodes = allocation.nodes;
  return options;
}

}  // namespace tuner
