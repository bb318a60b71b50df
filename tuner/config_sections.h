// Reading the `searcher`, `scheduler` and `devices` sections of a config.
#ifndef TUNER_TUNER_CONFIG_SECTIONS_H_
#define TUNER_TUNER_CONFIG_SECTIONS_H_

#include <yaml-cpp/yaml.h>

#include "tuner/config_values.h"
#include "tuner/experiment_config.h"

namespace tuner::config {

// Both throw LoadError (file:line: key: message) on bad input. ReadSearcher
// needs c.space read; ReadScheduler needs c.searcher read.
void ReadSearcher(const Reader& r, const YAML::Node& node, ExperimentConfig& c);
void ReadScheduler(const Reader& r, const YAML::Node& node,
                   ExperimentConfig& c);
// The `devices` section (config_devices.cc).
void ReadDevices(const Reader& r, const YAML::Node& node, ExperimentConfig& c);

}  // namespace tuner::config

#endif  // TUNER_TUNER_CONFIG_SECTIONS_H_
