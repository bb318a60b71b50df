// `tuner run --set KEY=VALUE` and `--name NAME`: changes to a config
// document before it is read. LoadConfigText takes the list; the CLI makes
// its `--name` entry with NameOverride.
#ifndef TUNER_TUNER_CONFIG_CONFIG_OVERRIDES_H_
#define TUNER_TUNER_CONFIG_CONFIG_OVERRIDES_H_

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "core/result.h"

namespace tuner::config {

// The entry of an override list for `--name NAME`: it sets `name` to NAME,
// taken as text (never read as YAML), and an error about it names `--name`.
std::string NameOverride(const std::string& name);

// Sets each KEY (dotted: scheduler.max_t, search_space.lr.high) of `root`
// to VALUE read as YAML (20, 0.1, "text", [1, 2]), in order, creating the
// mappings on the way. The keys are not checked here: the loader refuses
// an unknown one as it would in the file. An error names the override:
// "--set KEY=VALUE: why" (or "--name NAME: why"). `root` that is not a mapping
// is left alone.
core::Status ApplyOverrides(YAML::Node& root,
                            const std::vector<std::string>& overrides);

// A loader error ("LINE: KEY: message") about a key an override set (or
// one inside it, or a parent it created), told as "--set KEY=VALUE: KEY:
// message" (or "--name NAME: name: message"); "" when no override set that
// key.
std::string BlameOverride(const std::string& error,
                          const std::vector<std::string>& overrides);

}  // namespace tuner::config

#endif  // TUNER_TUNER_CONFIG_CONFIG_OVERRIDES_H_
