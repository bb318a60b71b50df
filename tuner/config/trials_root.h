// The one way to the files of a stored experiment: its trial directories
// and its lock, only for a name that is a safe path component.
#ifndef TUNER_TUNER_CONFIG_TRIALS_ROOT_H_
#define TUNER_TUNER_CONFIG_TRIALS_ROOT_H_

#include <string>

#include "core/result.h"

namespace tuner {

// ExperimentTrialsRoot(json, db_path, name) when `name` is a safe path
// component (config::IsName); a name read from a database may be crafted
// ("..", "../x"), and no file is reached through one: kInvalidArgument
// naming it and the database otherwise.
core::Result<std::string> NamedTrialsRoot(const std::string& json,
                                          const std::string& db_path,
                                          const std::string& name);
// The same for an experiment the database does not hold (yet):
// TrialsRootFor(db_path, name), for a safe `name` only.
core::Result<std::string> NamedTrialsRoot(const std::string& db_path,
                                          const std::string& name);

}  // namespace tuner

#endif  // TUNER_TUNER_CONFIG_TRIALS_ROOT_H_
