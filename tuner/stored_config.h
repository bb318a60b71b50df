// The config as stored with an experiment, and how to read it back.
#ifndef TUNER_TUNER_STORED_CONFIG_H_
#define TUNER_TUNER_STORED_CONFIG_H_

#include <string>

#include "tuner/core/result.h"
#include "tuner/experiment_config.h"

namespace tuner {

// JSON holding the YAML text as written, where it came from, and what was
// resolved when the sweep started (workdir, the searcher seed), so that the
// stored experiment can be rebuilt exactly.
std::string StoredConfigJson(const ExperimentConfig& config,
                             const std::string& yaml_text,
                             const std::string& source_path);

core::Result<ExperimentConfig> LoadStoredConfig(const std::string& json);

}  // namespace tuner

#endif  // TUNER_TUNER_STORED_CONFIG_H_
