// A stored experiment that failed inside the tuner, with its reason: what
// status, trials, the API and the dashboard must show.
#ifndef TUNER_TESTS_SUPPORT_FAILED_EXPERIMENT_H_
#define TUNER_TESTS_SUPPORT_FAILED_EXPERIMENT_H_

#include <string>

#include "storage/trial_store.h"
#include "tests/catch.h"

namespace tuner::testing {

inline storage::ExperimentRecord AddFailedExperiment(
    storage::TrialStore& store, const std::string& name,
    const std::string& reason) {
  storage::ExperimentRecord e;
  e.name = name;
  e.status = core::ExperimentStatus::kRunning;
  e.metric = "score";
  e.time_attr = "epoch";
  e.config_json = "{}";
  auto id = store.experiments().Create(e);
  REQUIRE(id.ok());
  REQUIRE(store.experiments()
              .SetStatus(id.value(), core::ExperimentStatus::kFailed, reason)
              .ok());
  auto row = store.experiments().Find(name);
  REQUIRE(row.ok());
  REQUIRE(row.value());
  REQUIRE(store.Commit().ok());
  return *row.value();
}

}  // namespace tuner::testing

#endif  // TUNER_TESTS_SUPPORT_FAILED_EXPERIMENT_H_
