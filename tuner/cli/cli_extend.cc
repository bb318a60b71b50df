// `tuner extend NAME --trials N`: adds trials to an experiment's budget.
#include <cstdio>
#include <filesystem>
#include <string>

#include "storage/trial_store.h"
#include "tuner/cli/cli.h"
#include "tuner/sweep/experiment_lifecycle.h"

namespace tuner::cli {

int Extend(const ExtendOptions& options) {
  std::error_code ec;
  if (!std::filesystem::exists(options.db_path, ec)) {
    std::fprintf(stderr, "tuner: no experiment '%s' in %s (no such file)\n",
                 options.name.c_str(), options.db_path.c_str());
    return kExitBadInput;
  }
  auto store = storage::TrialStore::Open(options.db_path);
  if (!store.ok()) {
    std::fprintf(stderr, "tuner: %s\n", store.message().c_str());
    return kExitFailure;
  }
  auto outcome = ExtendExperiment(*store.value(), options.db_path, options.name,
                                  options.trials);
  if (!outcome.ok()) {
    std::fprintf(stderr, "tuner: %s\n", outcome.message().c_str());
    bool bad = outcome.error().code == core::ErrorCode::kNotFound ||
               outcome.error().code == core::ErrorCode::kInvalidArgument;
    return bad ? kExitBadInput : kExitFailure;
  }
  const ExtendOutcome& o = outcome.value();
  std::printf("%s: budget %lld trials (%lld so far, %s)", options.name.c_str(),
              static_cast<long long>(o.budget),
              static_cast<long long>(o.trials), o.status.c_str());
  if (o.running) {
    std::printf("; the tuner running it launches the new ones\n");
    return kExitOk;
  }
  if (!options.run) {
    std::printf("; run them: tuner resume %s\n", options.name.c_str());
    return kExitOk;
  }
  std::printf("; resuming it\n");
  std::fflush(stdout);
  store.value().reset();
  return Resume(QueryOptions{options.db_path, options.name, 1, "table"});
}

}  // namespace tuner::cli
