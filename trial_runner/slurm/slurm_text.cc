#include "trial_runner/slurm/slurm_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <filesystem>

namespace tuner::runner {

namespace {

std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return lines;
}

bool AllDigits(std::string_view text) {
  return !text.empty() && text.size() <= 18 &&
         std::all_of(text.begin(), text.end(), [](char c) {
           return std::isdigit(static_cast<unsigned char>(c));
         });
}

bool Contains(std::string_view text, std::string_view needle) {
  return text.find(needle) != std::string_view::npos;
}

}  // namespace

uint64_t Fnv1a64(std::string_view text) {
  uint64_t hash = 14695981039346656037ull;
  for (unsigned char c : text) hash = (hash ^ c) * 1099511628211ull;
  return hash;
}

std::string SideLogPath(const std::string& status_path, const char* kind) {
  std::filesystem::path path(status_path);
  std::string file = path.filename().string();
  if (file.rfind("status", 0) == 0 && path.extension() == ".json") {
    file = kind + file.substr(6, file.size() - 6 - 5) + ".log";
    return (path.parent_path() / file).string();
  }
  return status_path + "." + kind + ".log";
}

std::string StepName(const std::string& status_path) {
  return fmt::format("tuner-{:016x}", Fnv1a64(status_path));
}

bool IsDeviceVariable(std::string_view name) {
  static constexpr std::array<std::string_view, 7> kNames = {
      "CUDA_VISIBLE_DEVICES",   "HABANA_VISIBLE_MODULES",
      "HABANA_VISIBLE_DEVICES", "NEURON_RT_VISIBLE_CORES",
      "ROCR_VISIBLE_DEVICES",   "GPU_DEVICE_ORDINAL",
      "NEURON_RT_NUM_CORES"};
  return std::find(kNames.begin(), kNames.end(), name) != kNames.end();
}

std::vector<std::string> SrunArgv(const SlurmCommands& commands,
                                  const std::string& job,
                                  const std::string& node,
                                  const std::string& name,
                                  const std::string& log,
                                  const std::vector<std::string>& extra,
                                  const std::vector<std::string>& program) {
  std::vector<std::string> argv = {
      commands.srun,        "--jobid=" + job, "--nodelist=" + node,
      "--nodes=1",          "--ntasks=1",     "--overlap",
      "--job-name=" + name, "--input=none",   "--output=" + log,
      "--error=" + log,     "--quiet"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  argv.insert(argv.end(), program.begin(), program.end());
  return argv;
}

std::vector<std::string> SqueueStepsArgv(const SlurmCommands& commands,
                                         const std::string& job) {
  return {commands.squeue, "--steps", "--jobs=" + job, "--noheader",
          "--format=%i|%N|%j"};
}

std::vector<SlurmStep> ParseSteps(std::string_view text) {
  std::vector<SlurmStep> steps;
  for (std::string_view line : Lines(text)) {
    size_t bar1 = line.find('|');
    if (bar1 == std::string_view::npos) continue;
    size_t bar2 = line.find('|', bar1 + 1);
    if (bar2 == std::string_view::npos) continue;
    std::string_view id = line.substr(0, bar1);
    while (!id.empty() && id.front() == ' ') id.remove_prefix(1);
    size_t dot = id.find('.');
    if (dot == std::string_view::npos) continue;
    std::string_view step = id.substr(dot + 1);
    if (!AllDigits(step) || !ValidJobId(id.substr(0, dot))) continue;
    SlurmStep s;
    s.job = std::string(id.substr(0, dot));
    s.step = std::stoll(std::string(step));
    s.node = std::string(line.substr(bar1 + 1, bar2 - bar1 - 1));
    s.name = std::string(line.substr(bar2 + 1));
    steps.push_back(std::move(s));
  }
  return steps;
}

std::vector<std::string> SinfoNodesArgv(const SlurmCommands& commands,
                                        const std::string& nodes) {
  return {commands.sinfo, "--noheader", "--Node", "--nodes=" + nodes,
          "--format=%N|%T"};
}

std::map<std::string, std::string> ParseNodeStates(std::string_view text) {
  std::map<std::string, std::string> states;
  for (std::string_view line : Lines(text)) {
    size_t bar = line.find('|');
    if (bar == std::string_view::npos || bar == 0) continue;
    std::string state(line.substr(bar + 1));
    for (char& c : state) c = static_cast<char>(std::tolower(c));
    states[std::string(line.substr(0, bar))] = state;
  }
  return states;
}

bool NodeUnfit(std::string_view state) {
  if (state.empty() || Contains(state, "*")) return true;
  for (std::string_view bad : {"down", "drain", "fail", "unknown", "power",
                               "maint", "reboot", "future", "inval"}) {
    if (Contains(state, bad)) return true;
  }
  return false;
}

bool NodeLeftAllocation(std::string_view state) {
  return Contains(state, "down") || Contains(state, "fail");
}

std::optional<std::string> ParseGrantedJob(std::string_view text) {
  for (std::string_view key : {std::string_view("Granted job allocation "),
                               std::string_view("Submitted batch job ")}) {
    size_t at = text.find(key);
    if (at == std::string_view::npos) continue;
    std::string_view rest = text.substr(at + key.size());
    size_t end = 0;
    while (end < rest.size() &&
           std::isdigit(static_cast<unsigned char>(rest[end])))
      ++end;
    if (AllDigits(rest.substr(0, end))) return std::string(rest.substr(0, end));
  }
  return std::nullopt;
}

bool ValidJobId(std::string_view job) {
  size_t sep = job.find_first_of("_+");
  if (sep == std::string_view::npos) return AllDigits(job);
  return AllDigits(job.substr(0, sep)) && AllDigits(job.substr(sep + 1));
}

StepEnd ClassifyStepEnd(std::string_view srun_log) {
  StepEnd end;
  for (std::string_view line : Lines(srun_log)) {
    // slurmstepd's "*** STEP 7.2 ON n1 CANCELLED AT ... ***" may be lost
    // when it kills the step; srun's "task 0: Killed" (SIGKILL to the
    // shim, which only Slurm sends) remains.
    bool cancelled = Contains(line, "CANCELLED") ||
                     (Contains(line, "srun: error:") && line.size() >= 8 &&
                      line.substr(line.size() - 8) == ": Killed");
    bool failed =
        Contains(line, "NODE_FAIL") || Contains(line, "Node failure") ||
        Contains(line, "node failure") || Contains(line, "DUE TO NODE");
    if (!cancelled && !failed) continue;
    end.cause = failed ? EndCause::kNodeFailed : EndCause::kCancelled;
    end.line = std::string(line.substr(0, 300));
  }
  return end;
}

}  // namespace tuner::runner
