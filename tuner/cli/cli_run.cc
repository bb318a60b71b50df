#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <boost/asio/signal_set.hpp>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "storage/trial_store.h"
#include "tuner/base/one_line.h"
#include "tuner/base/small_file.h"
#include "tuner/base/tuner_lock.h"
#include "tuner/cli/cli.h"
#include "tuner/cli/cli_sweep.h"
#include "tuner/config/config_loader.h"
#include "tuner/config/config_overrides.h"
#include "tuner/config/device_setup.h"
#include "tuner/config/stored_config.h"
#include "tuner/sweep/experiment_lifecycle.h"
#include "tuner/sweep/sweep.h"
#include "tuner/sweep/sweep_site.h"
#include "tuner/text/line_progress.h"
#include "tuner/text/table_progress.h"
#include "util/lock_file.h"

namespace tuner::cli {

namespace {

namespace fs = std::filesystem;

// --quiet: the logger keeps warnings and errors only.
void QuietLogger(bool quiet) {
  if (quiet) spdlog::set_level(spdlog::level::warn);
}

// How a stored experiment came to be taken up: `tuner resume NAME`, or
// `tuner run CONFIG` naming it.
enum class Asked { kResume, kRun };

// The stored experiment, resumed with its stored config, unless it
// finished (and was not extended since).
int ResumeStored(const storage::ExperimentRecord& experiment,
                 const std::string& db_path, storage::TrialStore& store,
                 bool quiet, Asked asked) {
  core::Status resumable = CheckResumable(store, experiment);
  if (!resumable.ok() &&
      resumable.error().code == core::ErrorCode::kAlreadyExists) {
    const char* name = experiment.name.c_str();
    if (asked == Asked::kResume) {
      std::fprintf(stderr,
                   "tuner: experiment '%s' is finished in %s: nothing to "
                   "resume; add trials and run them with `tuner extend %s "
                   "--trials N --run` (its results: tuner best %s)\n",
                   name, db_path.c_str(), name, name);
    } else {
      std::fprintf(stderr,
                   "tuner: experiment '%s' already finished in %s; run this "
                   "file as a new experiment with --name NEW, or add trials "
                   "to it with `tuner extend %s --trials N --run` (its "
                   "results: tuner best %s)\n",
                   name, db_path.c_str(), name, name);
    }
    return kExitBadInput;
  }
  if (!resumable.ok()) {
    std::fprintf(stderr, "tuner: %s\n", resumable.message().c_str());
    return kExitBadInput;
  }
  auto config = LoadStoredConfig(experiment.config_json, db_path);
  if (!config.ok()) {
    std::fprintf(stderr, "tuner: %s\n", config.message().c_str());
    return kExitFailure;
  }
  spdlog::info("resuming experiment '{}' with its stored config",
               experiment.name);
  int code = RunSweep(config.value(), experiment.config_json, db_path, store,
                      &experiment, quiet);
  if (code == kExitOk) {
    std::printf("\n");
    Best(QueryOptions{db_path, experiment.name, 1, "table"});
  }
  return code;
}

// `tuner run` of a file whose experiment the database has: false (and
// one line said why) when the file, with its overrides, is not the config
// the experiment was started from. A stored config that cannot be
// compared is left to ResumeStored to judge.
bool SameAsStored(const storage::ExperimentRecord& experiment,
                  const std::string& db_path, const std::string& text,
                  const std::vector<std::string>& overrides) {
  auto changed = ChangedKeys(experiment.config_json, text, overrides);
  if (!changed.ok() || changed.value().empty()) return true;
  std::string keys;
  for (const auto& key : changed.value())
    keys += (keys.empty() ? "" : ", ") + key;
  const char* name = experiment.name.c_str();
  // A finished one is taken up as stored by adding trials to it.
  std::string as_stored =
      experiment.status == core::ExperimentStatus::kFinished
          ? fmt::format(
                "add trials to it as stored with `tuner extend {} "
                "--trials N --run`",
                name)
          : fmt::format("take it up as stored with `tuner resume {}`", name);
  std::fprintf(
      stderr,
      "tuner: experiment '%s' in %s was started from another config "
      "(%s: %s); %s, or run this file as a new experiment with --name NEW\n",
      name, db_path.c_str(),
      changed.value().size() == 1 ? "this key differs" : "these keys differ",
      OneLine(keys).c_str(), as_stored.c_str());
  return false;
}

}  // namespace

std::vector<std::string> ConfigOverrides::List() const {
  std::vector<std::string> list = sets;
  if (name) list.push_back(config::NameOverride(*name));
  return list;
}

std::string DatabasePath(const ExperimentConfig& config,
                         const std::optional<std::string>& flag) {
  if (flag) return *flag;
  if (!config.storage) return "tuner.db";
  return (fs::path(config.workdir) / *config.storage).string();
}

int Resume(const QueryOptions& options) {
  QuietLogger(options.quiet);
  if (auto there = DatabaseThere(options.db_path); !there.ok()) {
    std::fprintf(stderr, "tuner: %s\n", there.message().c_str());
    return ExitCodeOf(there.error());
  }
  auto store = storage::TrialStore::Open(options.db_path);
  if (!store.ok()) {
    std::fprintf(stderr, "tuner: %s\n", store.message().c_str());
    return kExitFailure;
  }
  auto experiment = store.value()->experiments().Find(options.name);
  if (!experiment.ok() || !experiment.value()) {
    std::fprintf(stderr, "tuner: no experiment %s in %s\n",
                 core::QuotedInput(options.name).c_str(),
                 options.db_path.c_str());
    return kExitFailure;
  }
  return ResumeStored(*experiment.value(), options.db_path, *store.value(),
                      options.quiet, Asked::kResume);
}

int Run(const RunOptions& options) {
  QuietLogger(options.quiet);
  auto text = ReadSmallFile(options.config_path, kMaxConfigBytes);
  if (!text.ok()) {
    return Fail(text.message(), kExitBadInput);
  }
  // Relative paths are the invocation directory's (docs/config.md).
  std::string base = fs::current_path().string();
  std::vector<std::string> overrides = options.overrides.List();
  auto config =
      LoadConfigText(text.value(), options.config_path, base, base, overrides);
  if (!config.ok()) {
    return Fail(config.message(), kExitBadInput);
  }
  if (auto workdir = CheckWorkdir(config.value(), options.config_path);
      !workdir.ok()) {
    return Fail(workdir.message(), kExitBadInput);
  }
  std::string db_path = DatabasePath(config.value(), options.db_path);
  auto store = storage::TrialStore::Open(db_path);
  if (!store.ok()) {
    std::fprintf(stderr, "tuner: %s\n", store.message().c_str());
    return kExitFailure;
  }
  auto existing = store.value()->experiments().Find(config.value().name);
  if (existing.ok() && existing.value()) {
    if (!SameAsStored(*existing.value(), db_path, text.value(), overrides))
      return kExitBadInput;
    return ResumeStored(*existing.value(), db_path, *store.value(),
                        options.quiet, Asked::kRun);
  }
  if (!config.value().seed_given) {
    spdlog::info("searcher seed {} (set searcher.seed to repeat this sweep)",
                 config.value().searcher.seed);
  }
  std::string stored =
      WithOverrides(StoredConfigJson(config.value(), text.value(),
                                     options.config_path, base, db_path),
                    overrides);
  int code = RunSweep(config.value(), stored, db_path, *store.value(), nullptr,
                      options.quiet);
  if (code == kExitOk) {
    QueryOptions best{db_path, config.value().name, 1, "table"};
    std::printf("\n");
    Best(best);
  }
  return code;
}

}  // namespace tuner::cli
