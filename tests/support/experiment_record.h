// A stored experiment for storage tests: metric "acc" by epoch, an empty
// config, running.
#ifndef TUNER_TESTS_SUPPORT_EXPERIMENT_RECORD_H_
#define TUNER_TESTS_SUPPORT_EXPERIMENT_RECORD_H_

#include <string>

#include "storage/records.h"

namespace tuner::testing {

inline storage::ExperimentRecord ExperimentNamed(const std::string& name,
                                                 core::Mode mode) {
  storage::ExperimentRecord e;
  e.name = name;
  e.status = core::ExperimentStatus::kRunning;
  e.metric = "acc";
  e.mode = mode;
  e.time_attr = "epoch";
  e.config_json = "{}";
  return e;
}

}  // namespace tuner::testing

#endif  // TUNER_TESTS_SUPPORT_EXPERIMENT_RECORD_H_
