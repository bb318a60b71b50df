// `tuner stop NAME`: asks the tuner running an experiment to stop.
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>

#include "core/printable.h"
#include "storage/trial_store.h"
#include "tuner/base/tuner_lock.h"
#include "tuner/cli/cli.h"
#include "tuner/config/config_values.h"
#include "tuner/config/trials_root.h"
#include "util/lock_file.h"

namespace tuner::cli {

namespace {

// Where the experiment's tuner holds its lock: with its trials.
core::Result<std::string> TrialsRootOf(const StopOptions& options) {
  auto store = storage::TrialStore::OpenReadOnly(options.db_path);
  if (store.ok()) {
    auto experiment = store.value()->experiments().Find(options.name);
    if (experiment.ok() && experiment.value()) {
      return NamedTrialsRoot(experiment.value()->config_json, options.db_path,
                             options.name);
    }
  }
  return NamedTrialsRoot(options.db_path, options.name);
}

// Whether the database holds the experiment (false when it cannot be read).
bool IsStored(const StopOptions& options) {
  auto store = storage::TrialStore::OpenReadOnly(options.db_path);
  if (!store.ok()) return false;
  auto experiment = store.value()->experiments().Find(options.name);
  return experiment.ok() && experiment.value();
}

}  // namespace

int Stop(const StopOptions& options) {
  if (auto there = DatabaseThere(options.db_path); !there.ok()) {
    std::fprintf(stderr, "tuner: %s\n", there.message().c_str());
    return ExitCodeOf(there.error());
  }
  if (!config::IsName(options.name) && !IsStored(options)) {
    std::fprintf(stderr, "tuner: no experiment %s in %s\n",
                 core::QuotedInput(options.name).c_str(),
                 options.db_path.c_str());
    return kExitFailure;  // as best and delete answer an unknown name
  }
  auto root = TrialsRootOf(options);
  if (!root.ok()) {
    std::fprintf(stderr, "tuner: %s\n", root.message().c_str());
    return kExitBadInput;
  }
  std::string lock = TunerLockPath(root.value(), options.name);
  util::LockState state = util::ProbeLock(lock);
  std::string url = ParseLockOwner(state.owner).server_url;
  if (state.held && !url.empty()) {
    // A service runs it: signalling that process would stop every
    // experiment it runs.
    std::fprintf(stderr,
                 "tuner: experiment '%s' runs in the service at %s; stop it "
                 "there: tuner stop %s --server %s\n",
                 options.name.c_str(), url.c_str(), options.name.c_str(),
                 url.c_str());
    return kExitBadInput;
  }
  if (!state.held && !IsStored(options)) {
    std::fprintf(stderr, "tuner: no experiment %s in %s\n",
                 core::QuotedInput(options.name).c_str(),
                 options.db_path.c_str());
    return kExitFailure;  // as best and delete answer an unknown name
  }
  if (!state.held) {
    std::fprintf(stderr, "tuner: no tuner is running experiment '%s' (%s)\n",
                 options.name.c_str(), options.db_path.c_str());
    return kExitBadInput;
  }
  // The lock file is only text: signal its pid only if that process is
  // the tuner that wrote it.
  std::string why;
  std::optional<int> verified = VerifiedTunerPid(state.owner, lock, &why);
  if (!verified) {
    std::fprintf(stderr,
                 "tuner: not stopping experiment '%s': %s; nothing was "
                 "signalled (%s)\n",
                 options.name.c_str(), why.c_str(), lock.c_str());
    return kExitBadInput;
  }
  int pid = *verified;
  int signal = options.detach ? SIGUSR1 : SIGTERM;
  kill(pid, signal);
  if (options.force && !options.detach) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    kill(pid, SIGTERM);  // the second one kills the trials at once
  }
  auto deadline = std::chrono::steady_clock::now() + options.wait;
  while (util::ProbeLock(lock).held &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (util::ProbeLock(lock).held) {
    std::fprintf(stderr, "tuner: tuner %d is still stopping\n", pid);
    return kExitFailure;
  }
  std::printf("%s: %s\n", options.name.c_str(),
              options.detach ? "detached (trials left running; `tuner "
                               "resume` takes them up)"
                             : "stopped");
  return kExitOk;
}

}  // namespace tuner::cli
