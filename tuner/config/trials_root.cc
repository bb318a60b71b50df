#include "tuner/config/trials_root.h"

#include "tuner/base/one_line.h"
#include "tuner/base/tuner_lock.h"
#include "tuner/config/config_values.h"
#include "tuner/config/stored_config.h"

namespace tuner {

namespace {

core::Status CheckName(const std::string& db_path, const std::string& name) {
  if (config::IsName(name)) return core::Status::Ok();
  return core::InvalidArgument(db_path + ": experiment name '" + OneLine(name) +
                               "' is not a safe path component (" +
                               config::kNameRule +
                               "): none of its files is touched");
}

}  // namespace

core::Result<std::string> NamedTrialsRoot(const std::string& json,
                                          const std::string& db_path,
                                          const std::string& name) {
  TUNER_RETURN_IF_ERROR(CheckName(db_path, name));
  return ExperimentTrialsRoot(json, db_path, name);
}

core::Result<std::string> NamedTrialsRoot(const std::string& db_path,
                                          const std::string& name) {
  TUNER_RETURN_IF_ERROR(CheckName(db_path, name));
  return TrialsRootFor(db_path, name);
}

}  // namespace tuner
