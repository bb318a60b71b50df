// tuner best | trials | status on a database (--db); the text comes from
// query_text.cc, which the service shares.
#include <cstdio>

#include "storage/trial_store.h"
#include "tuner/cli/cli.h"
#include "tuner/text/query_text.h"

namespace tuner::cli {

namespace {

using storage::TrialStore;

int Fail(const std::string& message, int code = kExitFailure) {
  std::fprintf(stderr, "tuner: %s\n", message.c_str());
  return code;
}

int Print(const core::Result<std::string>& text) {
  if (!text.ok()) return Fail(text.message());
  std::fputs(text.value().c_str(), stdout);
  return kExitOk;
}

}  // namespace

int Best(const QueryOptions& options) {
  auto store = TrialStore::OpenReadOnly(options.db_path);
  if (!store.ok()) return Fail(store.message());
  auto experiment =
      FindExperimentIn(*store.value(), options.name, options.db_path);
  if (!experiment.ok()) return Fail(experiment.message());
  return Print(BestText(*store.value(), experiment.value(), options.top,
                        options.format));
}

int Trials(const QueryOptions& options) {
  auto store = TrialStore::OpenReadOnly(options.db_path);
  if (!store.ok()) return Fail(store.message());
  auto experiment =
      FindExperimentIn(*store.value(), options.name, options.db_path);
  if (!experiment.ok()) return Fail(experiment.message());
  return Print(TrialsText(*store.value(), experiment.value(), options.format));
}

int Status(const QueryOptions& options) {
  auto store = TrialStore::OpenReadOnly(options.db_path);
  if (!store.ok()) return Fail(store.message());
  return Print(StatusText(*store.value(), options.name));
}

}  // namespace tuner::cli
