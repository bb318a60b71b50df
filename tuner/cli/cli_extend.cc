// `tuner extend NAME --trials N`: adds trials to an experiment's budget.
#include <cstdio>
#include <string>

#include "storage/trial_store.h"
#include "tuner/cli/cli.h"
#include "tuner/sweep/experiment_lifecycle.h"
#include "tuner/text/query_text.h"

namespace tuner::cli {

int Extend(const ExtendOptions& options) {
  if (auto there = DatabaseThere(options.db_path); !there.ok()) {
    std::fprintf(stderr, "tuner: %s\n", there.message().c_str());
    return ExitCodeOf(there.error());
  }
  auto store = storage::TrialStore::Open(options.db_path);
  if (!store.ok()) {
    std::fprintf(stderr, "tuner: %s\n", store.message().c_str());
    return kExitFailure;
  }
  auto outcome = ExtendExperiment(*store.value(), options.db_path, options.name,
                                  options.trials);
  if (!outcome.ok() && outcome.error().code == core::ErrorCode::kNotFound) {
    // As `tuner best NAME` says it, naming the experiments there are.
    auto found =
        FindExperimentIn(*store.value(), options.name, options.db_path);
    std::fprintf(
        stderr, "tuner: %s\n",
        found.ok() ? outcome.message().c_str() : found.message().c_str());
    return kExitFailure;
  }
  if (!outcome.ok()) {
    std::fprintf(stderr, "tuner: %s\n", outcome.message().c_str());
    bool bad = outcome.error().code == core::ErrorCode::kInvalidArgument;
    return bad ? kExitBadInput : kExitFailure;
  }
  const ExtendOutcome& o = outcome.value();
  std::printf("%s: budget %lld trials (%lld so far, %s)", options.name.c_str(),
              static_cast<long long>(o.budget),
              static_cast<long long>(o.trials),
              std::string(core::ToString(o.status)).c_str());
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
  return Resume(
      QueryOptions{options.db_path, options.name, 1, "table", options.quiet});
}

}  // namespace tuner::cli
