// The `checkpoints` section and the metrics format of an experiment config.
#include <algorithm>
#include <filesystem>

#include "trial_runner/output/metric_stream.h"
#include "tuner/config/config_sections.h"

namespace tuner::config {

namespace {

// Whether a relative path has a "." or ".." component.
bool HasDotComponent(const std::string& path) {
  std::filesystem::path parts(path);
  return std::any_of(parts.begin(), parts.end(), [](const auto& part) {
    return part == "." || part == "..";
  });
}

}  // namespace

void ReadCheckpoints(const Reader& r, const YAML::Node& node,
                     ExperimentConfig& c) {
  Path path("checkpoints");
  r.Map(node, path);
  r.Keys(node, path, {"dir", "pattern", "resume", "keep_best", "wait", "poll"});
  CheckpointSpec& spec = c.checkpoints;
  spec.dir = r.String(r.Required(node, path, "dir"), path / "dir");
  CheckPlaceholders(node["dir"], path / "dir", spec.dir, c);
  if (node["pattern"]) {
    spec.pattern = r.String(node["pattern"], path / "pattern");
    if (spec.pattern.empty() || spec.pattern.front() == '/' ||
        HasDotComponent(spec.pattern)) {
      Fail(node["pattern"], path / "pattern",
           "a glob inside checkpoints.dir (relative, no '.' or '..' "
           "component), e.g. checkpoint-*/trainer_state.json");
    }
  }
  if (node["resume"]) {
    spec.resume = r.String(node["resume"], path / "resume");
    CheckPlaceholders(node["resume"], path / "resume", spec.resume, c,
                      {"checkpoint"});
  }
  if (node["keep_best"]) {
    spec.keep_best = static_cast<int>(
        r.Int(node["keep_best"], path / "keep_best", 0, 10'000'000));
  }
  if (node["wait"]) spec.wait = r.Duration(node["wait"], path / "wait");
  if (node["poll"]) spec.poll = r.Duration(node["poll"], path / "poll");
}

void ReadMetricsFormat(const Reader& r, const YAML::Node& root,
                       ExperimentConfig& c) {
  if (auto n = root["metrics_format"]) {
    c.metrics_format =
        r.Enum<std::string>(n, Path("metrics_format"),
                            {{"auto", "auto"},
                             {"katib", "katib"},
                             {"regex", "regex"},
                             {"trainer_state", "trainer_state"}});
    if (c.metrics_format == "trainer_state" && c.checkpoints.dir.empty()) {
      Fail(n, Path("metrics_format"),
           "trainer_state needs checkpoints.dir (where trainer_state.json "
           "files appear)");
    }
  }
  auto regex = root["metrics_regex"];
  if (c.metrics_format == "regex" && !regex) {
    Fail(root["metrics_format"], Path("metrics_regex"),
         "metrics_format regex needs metrics_regex");
  }
  if (!regex) return;
  if (c.metrics_format != "regex") {
    Fail(regex, Path("metrics_regex"), "needs metrics_format: regex");
  }
  c.metrics_regex = r.String(regex, Path("metrics_regex"));
  if (auto s = runner::CheckMetricRegex(c.metrics_regex); !s.ok())
    Fail(regex, Path("metrics_regex"), s.message());
}

}  // namespace tuner::config
