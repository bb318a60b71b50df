// `tuner delete NAME`: removes an experiment's rows and files.
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <string>

#include "storage/trial_store.h"
#include "tuner/cli/cli.h"
#include "tuner/sweep/experiment_lifecycle.h"
#include "tuner/text/query_text.h"
#include "util/lock_file.h"

namespace tuner::cli {

int Confirm(const std::string& question, const std::string& flag) {
  if (!isatty(STDIN_FILENO)) {
    std::fprintf(stderr,
                 "tuner: %s: stdin is not a terminal; add %s to go ahead "
                 "without asking\n",
                 question.c_str(), flag.c_str());
    return kExitBadInput;
  }
  std::fprintf(stderr, "%s? [y/N] ", question.c_str());
  std::string answer;
  std::getline(std::cin, answer);
  if (answer == "y" || answer == "Y" || answer == "yes") return kExitOk;
  std::fprintf(stderr, "tuner: nothing deleted\n");
  return kExitFailure;
}

namespace {

// Not found (as `tuner best` says it), running, or storage failed: 1.
int Refuse(const core::Error& error) {
  std::fprintf(stderr, "tuner: %s\n", error.message.c_str());
  return kExitFailure;
}

// What `tuner best NAME` says of a name the database lacks.
int RefuseUnknown(storage::TrialStore& store, const DeleteOptions& options,
                  const core::Error& error) {
  if (error.code != core::ErrorCode::kNotFound) return Refuse(error);
  auto found = FindExperimentIn(store, options.name, options.db_path);
  return Refuse(found.ok() ? error : found.error());
}

std::string Question(const std::string& name, const DeletePlan& plan) {
  return "delete experiment '" + name + "' (" + std::to_string(plan.trials) +
         (plan.trials == 1 ? " trial, " : " trials, ") + plan.trials_root + ")";
}

}  // namespace

int Delete(const DeleteOptions& options) {
  if (auto there = DatabaseThere(options.db_path); !there.ok()) {
    Refuse(there.error());
    return ExitCodeOf(there.error());
  }
  auto store = storage::TrialStore::Open(options.db_path);
  if (!store.ok()) return Refuse(store.error());
  auto plan = PlanDelete(*store.value(), options.db_path, options.name);
  if (!plan.ok()) return RefuseUnknown(*store.value(), options, plan.error());
  // Refused before the question: a running experiment is never asked about.
  util::LockState lock = util::ProbeLock(plan.value().lock_path);
  if (lock.held) {
    std::fprintf(stderr,
                 "tuner: experiment '%s' is running (%s); stop it first: "
                 "tuner stop %s\n",
                 options.name.c_str(), lock.owner.c_str(),
                 options.name.c_str());
    return kExitFailure;
  }
  if (auto running = RefuseWhileRunning(plan.value(), options.name);
      !running.ok()) {
    return Refuse(running.error());
  }
  // Rows already gone: only files of a half-done delete are left.
  if (plan.value().stored && !options.yes) {
    if (int code = Confirm(Question(options.name, plan.value()), "--yes"))
      return code;
  }
  auto outcome =
      DeleteExperiment(*store.value(), options.db_path, options.name);
  if (!outcome.ok()) {
    return RefuseUnknown(*store.value(), options, outcome.error());
  }
  for (const auto& left : outcome.value().left) {
    std::fprintf(stderr, "tuner: left in place: %s\n", left.c_str());
  }
  for (const auto& failed : outcome.value().failed) {
    std::fprintf(stderr, "tuner: not removed: %s\n", failed.c_str());
  }
  if (!outcome.value().failed.empty()) {
    std::fprintf(stderr,
                 "tuner: experiment '%s' is deleted from %s but %zu of its "
                 "paths are left; run tuner delete %s again to remove them\n",
                 options.name.c_str(), options.db_path.c_str(),
                 outcome.value().failed.size(), options.name.c_str());
    return kExitFailure;
  }
  std::printf("%s: deleted (%lld trials, %lld paths removed)\n",
              options.name.c_str(),
              static_cast<long long>(outcome.value().trials),
              static_cast<long long>(outcome.value().removed));
  return kExitOk;
}

}  // namespace tuner::cli
