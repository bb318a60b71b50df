// The config as stored with an experiment, and how to read it back.
#ifndef TUNER_TUNER_CONFIG_STORED_CONFIG_H_
#define TUNER_TUNER_CONFIG_STORED_CONFIG_H_

#include <string>
#include <vector>

#include "core/result.h"
#include "tuner/config/experiment_config.h"

namespace tuner {

// JSON holding the YAML text as written, where it came from, and what was
// resolved when the sweep started (the directory relative paths were
// resolved against, workdir, the searcher seed, the rules of the defaults
// it got, where its trial directories went, where the database at
// `db_path` is: DatabasePlace), so that the stored experiment can be
// rebuilt exactly. The stored `trials_root` only marks trial directories
// scoped by experiment: where they are is ExperimentTrialsRoot's, from
// where the database is.
std::string StoredConfigJson(const ExperimentConfig& config,
                             const std::string& yaml_text,
                             const std::string& source_path,
                             const std::string& base_dir,
                             const std::string& db_path);

// `stored_json` with the `--set` overrides the sweep was started with
// (applied again by LoadStoredConfig, so that a resume runs the same
// config); unchanged when there are none.
std::string WithOverrides(const std::string& stored_json,
                          const std::vector<std::string>& overrides);

// The top-level keys (sorted) whose values differ between the config
// stored as `stored_json` (with its overrides) and the YAML `text` with
// `overrides` applied, both read as YAML documents (comments, layout and
// quoting aside); `name` is not compared. A key present in one only
// differs. An error when either is not a readable YAML mapping.
core::Result<std::vector<std::string>> ChangedKeys(
    const std::string& stored_json, const std::string& text,
    const std::vector<std::string>& overrides);

// Rebuilds the config with the paths resolved when it was stored; those
// inside the folder that moved with the database at `db_path` (MovedRoot:
// the project folder holding the database's folder, else the database's
// folder) are read from where it is now (its config file, workdir,
// checkpoints.dir, ...), so that a project folder copied or moved whole
// runs in its new place. `db_path` empty: every path as stored. A config
// stored before the defaults were recorded gets the defaults it was started
// with: searcher random and grace_period 1 where its YAML gives none.
core::Result<ExperimentConfig> LoadStoredConfig(const std::string& json,
                                                const std::string& db_path);

// True only when the database at `db_path` is the file the experiment
// stored as `json` was created in (IsRecordedFile): false for a copy, a
// restored backup, a database of another user's, a crafted record, and one
// stored before the file was recorded. Files outside the database's folder
// are acted on only then.
bool IsStoredInDatabase(const std::string& json, const std::string& db_path);

// True for an experiment `tuner simulate` stored: it has no processes to
// resume (simulate it again instead).
bool IsSimulated(const std::string& json);
// What every resume (CLI or service) says of such an experiment: an
// InvalidArgument naming it; OK for any other.
core::Status RefuseSimulated(const std::string& name, const std::string& json);

// The directory of the trial directories of the experiment `name` stored
// as `json`, found from where the database at `db_path` is now and never
// from a path the database holds (it may have been moved or copied, or
// crafted): TrialsRootFor(db_path, name) for an experiment stored with a
// "trials_root" (whatever it says), LegacyTrialsRoot(db_path) for one
// stored before trial directories were scoped.
std::string ExperimentTrialsRoot(const std::string& json,
                                 const std::string& db_path,
                                 const std::string& name);

// The trial folder the experiment `name` had where the database at
// `db_path` was when it was stored, when the database was moved or copied
// without it (only the file): that folder, if it is there; else "". Named,
// never removed: it may be the original's.
std::string FormerTrialsRoot(const std::string& json,
                             const std::string& db_path,
                             const std::string& name);

}  // namespace tuner

#endif  // TUNER_TUNER_CONFIG_STORED_CONFIG_H_
