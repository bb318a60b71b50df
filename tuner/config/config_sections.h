// Reading the `searcher`, `scheduler` and `devices` sections of a config.
#ifndef TUNER_TUNER_CONFIG_CONFIG_SECTIONS_H_
#define TUNER_TUNER_CONFIG_CONFIG_SECTIONS_H_

#include <yaml-cpp/yaml.h>

#include "tuner/config/config_values.h"
#include "tuner/config/experiment_config.h"

namespace tuner::config {

// Both throw LoadError (file:line: key: message) on bad input. ReadSearcher
// needs c.space read and c.searcher.type set to DefaultSearcherType, which a
// `type` replaces (the other keys are checked against the type either way);
// ReadScheduler needs c.searcher read, and fills in the default
// grace_period.
// search_space (config_space.cc): its parameters, in order.
core::SearchSpace ReadSpace(const Reader& r, const YAML::Node& node,
                            const Path& path);
void ReadSearcher(const Reader& r, const YAML::Node& node, ExperimentConfig& c);
void ReadScheduler(const Reader& r, const YAML::Node& node,
                   ExperimentConfig& c);
// The searcher of a config that names none (no `searcher.type`): gp when
// `space` has a parameter (the best measured, docs/schedulers.md), random
// when it has none (nothing to model: each trial runs the command as is).
core::SearcherType DefaultSearcherType(const core::SearchSpace& space);
// The first rung of asha and hyperband without `grace_period`: three rungs
// below max_t, max_t / reduction_factor^3, and at least 1.
// REQUIRES: max_t > 0, reduction_factor > 1, both finite.
double DefaultGracePeriod(double max_t, double reduction_factor);
// The placeholders the tuner fills itself; no parameter may take a name.
inline constexpr const char* kBuiltinPlaceholders[] = {
    "max_t", "trial_id", "trial_dir", "devices", "num_devices", "master_port"};

// Fails unless every {placeholder} in `text` names a param, a built-in
// ({max_t}, {trial_id}, {trial_dir}, {devices}, …) or one of `extra`.
void CheckPlaceholders(const YAML::Node& node, const Path& path,
                       const std::string& text, const ExperimentConfig& c,
                       const std::vector<std::string>& extra = {});
// The `checkpoints` section; `metrics_format` and `metrics_regex`
// (config_checkpoints.cc).
void ReadCheckpoints(const Reader& r, const YAML::Node& node,
                     ExperimentConfig& c);
void ReadMetricsFormat(const Reader& r, const YAML::Node& root,
                       ExperimentConfig& c);
// The `cluster` section (config_cluster.cc); after `devices`.
void ReadCluster(const Reader& r, const YAML::Node& node, ExperimentConfig& c);
// The `devices` section (config_devices.cc).
void ReadDevices(const Reader& r, const YAML::Node& node, ExperimentConfig& c);

}  // namespace tuner::config

#endif  // TUNER_TUNER_CONFIG_CONFIG_SECTIONS_H_
