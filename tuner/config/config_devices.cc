// The `devices` section of an experiment config.
#include "tuner/config/config_sections.h"

namespace tuner::config {

namespace {

const std::vector<std::string> kDeviceKeys = {"kind",
                                              "per_trial",
                                              "slots",
                                              "ids",
                                              "launcher",
                                              "image",
                                              "docker_options",
                                              "recipe_cache",
                                              "recipe_cache_mb",
                                              "lock_dir",
                                              "busy_memory_mib",
                                              "pin_cpus"};

int Bounded(const Reader& r, const YAML::Node& node, const Path& path,
            int64_t low, int64_t high) {
  return static_cast<int>(r.Int(node, path, low, high));
}

std::vector<int> ReadIds(const Reader& r, const YAML::Node& node,
                         const Path& path) {
  if (!node.IsSequence()) Fail(node, path, "expected a list of device ids");
  std::vector<int> ids;
  for (size_t i = 0; i < node.size(); ++i) {
    ids.push_back(Bounded(r, node[i], path, 0, 65535));
  }
  return ids;
}

std::vector<std::string> ReadStrings(const Reader& r, const YAML::Node& node,
                                     const Path& path) {
  if (!node.IsSequence()) Fail(node, path, "expected a list of strings");
  std::vector<std::string> out;
  for (size_t i = 0; i < node.size(); ++i)
    out.push_back(r.String(node[i], path));
  return out;
}

void CheckCombination(const YAML::Node& node, const Path& path,
                      const DevicesSpec& d) {
  bool accelerator = d.kind != "cpu" && d.kind != "auto";
  if (node["slots"] && accelerator) {
    Fail(node["slots"], path / "slots",
         "slots is for kind cpu; " + d.kind +
             " trials get per_trial devices each, as many at once as fit");
  }
  if (d.kind == "habana" && d.per_trial != 0 && d.per_trial != 1 &&
      d.per_trial != 2 && d.per_trial != 4 && d.per_trial != 8) {
    Fail(node["per_trial"], path / "per_trial",
         "Gaudi trials use 1, 2, 4 or 8 cards (aligned module groups)");
  }
  if (d.launcher == "docker" && d.kind != "habana") {
    Fail(node["launcher"], path / "launcher",
         "launcher docker is for kind habana (the Habana container runtime "
         "partitions cards by HABANA_VISIBLE_DEVICES)");
  }
  if (d.launcher == "docker" && d.image.empty()) {
    Fail(node["launcher"], path / "image", "launcher docker needs an image");
  }
  if (d.launcher != "docker" && (node["image"] || node["docker_options"])) {
    Fail(node["image"] ? node["image"] : node["docker_options"], path,
         "image and docker_options apply to launcher docker only");
  }
}

}  // namespace

void ReadDevices(const Reader& r, const YAML::Node& node, ExperimentConfig& c) {
  Path path("devices");
  r.Map(node, path);
  r.Keys(node, path, kDeviceKeys);
  DevicesSpec& d = c.devices;
  if (node["kind"]) {
    d.kind = r.Enum<std::string>(node["kind"], path / "kind",
                                 {{"auto", "auto"},
                                  {"habana", "habana"},
                                  {"neuron", "neuron"},
                                  {"cuda", "cuda"},
                                  {"cpu", "cpu"}});
  }
  if (node["per_trial"])
    d.per_trial = Bounded(r, node["per_trial"], path / "per_trial", 1, 4096);
  if (node["slots"])
    d.slots = Bounded(r, node["slots"], path / "slots", 1, 4096);
  if (node["ids"]) d.ids = ReadIds(r, node["ids"], path / "ids");
  if (node["launcher"]) {
    d.launcher =
        r.Enum<std::string>(node["launcher"], path / "launcher",
                            {{"process", "process"}, {"docker", "docker"}});
  }
  if (node["image"]) d.image = r.String(node["image"], path / "image");
  if (node["docker_options"]) {
    d.docker_options =
        ReadStrings(r, node["docker_options"], path / "docker_options");
  }
  if (node["recipe_cache"])
    d.recipe_cache = r.String(node["recipe_cache"], path / "recipe_cache");
  if (node["recipe_cache_mb"]) {
    d.recipe_cache_mb = Bounded(r, node["recipe_cache_mb"],
                                path / "recipe_cache_mb", 1, 1 << 24);
  }
  if (node["lock_dir"]) {
    // A per-experiment lock directory would split device exclusion
    // between tuners: the machine has one (device_setup.h).
    Fail(node["lock_dir"], path / "lock_dir",
         "is not a config key: every tuner on the machine must use the same "
         "lock directory; set $TUNER_LOCK_DIR instead");
  }
  if (node["busy_memory_mib"]) {
    d.busy_memory_mib =
        r.Int(node["busy_memory_mib"], path / "busy_memory_mib");
  }
  if (node["pin_cpus"])
    d.pin_cpus = r.Bool(node["pin_cpus"], path / "pin_cpus");
  if (node["slots"] && node["per_trial"] && d.kind == "cpu") {
    Fail(node["per_trial"], path / "per_trial",
         "give slots or per_trial for kind cpu, not both");
  }
  CheckCombination(node, path, d);
}

}  // namespace tuner::config
