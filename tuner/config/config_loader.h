// Loading and validating experiment YAML files.
#ifndef TUNER_TUNER_CONFIG_CONFIG_LOADER_H_
#define TUNER_TUNER_CONFIG_CONFIG_LOADER_H_

#include <string>
#include <vector>

#include "core/result.h"
#include "tuner/config/experiment_config.h"

namespace tuner {

// Reads and validates the experiment file at `path` (schema: docs/config.md).
// An error is one line naming the file, the line and the key, e.g.
//   configs/x.yaml:7: search_space.lr.low: loguniform needs low > 0 (got 0)
// Relative paths follow one rule (docs/config.md): `workdir` is resolved
// against `invocation_dir` (the directory `tuner run`, `plan` or `submit`
// was started in), and without one the trials run there.
// Fails unless `c.workdir` is a directory, the error naming `origin` and
// the key. Checked where trials are about to run (run, submit), not when a
// stored config is read again.
core::Status CheckWorkdir(const ExperimentConfig& c, const std::string& origin);

// How many combinations the grid of `c` has (its grid axes, and with
// searcher grid its choices too); saturates at INT64_MAX; 1 with no axis.
int64_t GridSize(const ExperimentConfig& c);

// A config file is at most this large (as a submitted one: the API's body
// limit).
inline constexpr size_t kMaxConfigBytes = 1024 * 1024;

// `overrides` as LoadConfigText's.
core::Result<ExperimentConfig> LoadConfigFile(
    const std::string& path, const std::string& invocation_dir,
    const std::vector<std::string>& overrides = {});

// The same, for YAML text; `origin` names it in errors. A relative
// `workdir` is resolved against `base_dir`; without one, the trials run in
// `default_workdir` (both the invocation directory, except for experiments
// stored before that rule). `overrides` ("KEY=VALUE", `tuner run --set`)
// change the document before it is read (config_overrides.h); an error
// about a key one of them set names it instead of a line.
core::Result<ExperimentConfig> LoadConfigText(
    const std::string& text, const std::string& origin,
    const std::string& base_dir, const std::string& default_workdir,
    const std::vector<std::string>& overrides = {});

// `text` with the overrides applied, for a config sent elsewhere (`tuner
// submit --set`): checked as LoadConfigText checks it (`origin` and
// `invocation_dir` as there), then emitted again (comments are lost).
// Unchanged without overrides.
core::Result<std::string> OverriddenConfigText(
    const std::string& text, const std::string& origin,
    const std::string& invocation_dir,
    const std::vector<std::string>& overrides);

// The closest of `candidates` to `word`, if close enough to be a likely typo.
std::string DidYouMean(const std::string& word,
                       const std::vector<std::string>& candidates);

}  // namespace tuner

#endif  // TUNER_TUNER_CONFIG_CONFIG_LOADER_H_
