// The `cluster` section of an experiment config (docs/slurm.md).
#include "trial_runner/slurm/slurm_text.h"
#include "tuner/config/config_sections.h"

namespace tuner::config {

namespace {

constexpr int64_t kMaxNodes = 100000;

std::vector<std::string> ReadArgs(const Reader& r, const YAML::Node& node,
                                  const Path& path) {
  if (!node.IsSequence()) Fail(node, path, "expected a list of arguments");
  std::vector<std::string> out;
  for (size_t i = 0; i < node.size(); ++i)
    out.push_back(r.String(node[i], path));
  return out;
}

}  // namespace

void ReadCluster(const Reader& r, const YAML::Node& node, ExperimentConfig& c) {
  Path path("cluster");
  r.Map(node, path);
  r.Keys(node, path,
         {"kind", "job", "nodes", "partition", "account", "time", "exclusive",
          "salloc_args", "srun_args", "poll"});
  ClusterSpec& s = c.cluster;
  if (node["kind"]) s.kind = r.String(node["kind"], path / "kind");
  if (s.kind != "local" && s.kind != "slurm")
    Fail(node["kind"], path / "kind", "expected local or slurm");
  if (auto n = node["job"]) {
    s.job = r.String(n, path / "job");
    if (!runner::ValidJobId(s.job))
      Fail(n, path / "job", "expected a Slurm job id such as 1234");
  }
  if (auto n = node["nodes"])
    s.nodes = static_cast<int>(r.Int(n, path / "nodes", 1, kMaxNodes));
  if (auto n = node["partition"]) s.partition = r.String(n, path / "partition");
  if (auto n = node["account"]) s.account = r.String(n, path / "account");
  if (auto n = node["time"]) s.time = r.String(n, path / "time");
  if (auto n = node["exclusive"]) s.exclusive = r.Bool(n, path / "exclusive");
  if (auto n = node["salloc_args"])
    s.salloc_args = ReadArgs(r, n, path / "salloc_args");
  if (auto n = node["srun_args"])
    s.srun_args = ReadArgs(r, n, path / "srun_args");
  if (auto n = node["poll"]) {
    s.poll = r.Duration(n, path / "poll");
    if (s.poll.count() < 100 || s.poll.count() > 600000)
      Fail(n, path / "poll", "must be between 0.1 s and 10 min");
  }
  if (s.kind == "slurm" && c.devices.launcher == "docker")
    Fail(node["kind"], path / "kind",
         "devices.launcher docker is not supported on Slurm yet");
}

}  // namespace tuner::config
