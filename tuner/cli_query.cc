#include <fmt/format.h>

#include <cstdio>
#include <map>

#include "storage/trial_store.h"
#include "tuner/cli.h"
#include "tuner/launch_spec.h"
#include "tuner/stored_config.h"
#include "tuner/trial_format.h"

namespace tuner::cli {

namespace {

using storage::ExperimentRecord;
using storage::TrialStore;

int Fail(const std::string& message, int code = kExitFailure) {
  std::fprintf(stderr, "tuner: %s\n", message.c_str());
  return code;
}

// Opens the database and finds `name`; prints why not and returns nullopt.
std::optional<ExperimentRecord> FindExperiment(TrialStore& store,
                                               const QueryOptions& options) {
  auto found = store.FindExperiment(options.name);
  if (!found.ok()) return Fail(found.message()), std::nullopt;
  if (found.value()) return found.value();
  std::string names;
  if (auto all = store.ListExperiments(); all.ok()) {
    for (const auto& e : all.value())
      names += (names.empty() ? "" : ", ") + e.name;
  }
  Fail(fmt::format("no experiment '{}' in {}{}", options.name, options.db_path,
                   names.empty() ? "" : " (it has: " + names + ")"));
  return std::nullopt;
}

int PrintTrials(const std::vector<storage::TrialRecord>& trials,
                const ExperimentRecord& experiment, const std::string& format) {
  if (format == "json") {
    nlohmann::ordered_json array = nlohmann::ordered_json::array();
    for (const auto& t : trials) array.push_back(TrialJson(t));
    std::printf("%s\n", array.dump(2).c_str());
  } else if (format == "yaml") {
    std::printf("%s", TrialsYaml(trials).c_str());
  } else if (format == "args") {
    auto config = LoadStoredConfig(experiment.config_json);
    if (!config.ok()) return Fail(config.message());
    for (const auto& t : trials) {
      std::printf("%s\n", FlagsFor(config.value(), t.params).c_str());
    }
  } else {
    std::printf("%s", TrialsTable(trials, experiment).c_str());
  }
  return kExitOk;
}

}  // namespace

int Best(const QueryOptions& options) {
  auto store = TrialStore::OpenReadOnly(options.db_path);
  if (!store.ok()) return Fail(store.message());
  auto experiment = FindExperiment(*store.value(), options);
  if (!experiment) return kExitFailure;
  auto trials = store.value()->BestTrials(*experiment, options.top);
  if (!trials.ok()) return Fail(trials.message());
  if (trials.value().empty()) {
    return Fail("experiment '" + options.name +
                "' has no trial with a value yet");
  }
  return PrintTrials(trials.value(), *experiment, options.format);
}

int Trials(const QueryOptions& options) {
  auto store = TrialStore::OpenReadOnly(options.db_path);
  if (!store.ok()) return Fail(store.message());
  auto experiment = FindExperiment(*store.value(), options);
  if (!experiment) return kExitFailure;
  auto trials = store.value()->ListTrials(experiment->id);
  if (!trials.ok()) return Fail(trials.message());
  return PrintTrials(trials.value(), *experiment, options.format);
}

int Status(const QueryOptions& options) {
  auto store = TrialStore::OpenReadOnly(options.db_path);
  if (!store.ok()) return Fail(store.message());
  auto experiments = store.value()->ListExperiments();
  if (!experiments.ok()) return Fail(experiments.message());
  std::printf("%-24s %-11s %7s %7s %9s %7s %6s  %s\n", "experiment", "status",
              "pending", "running", "completed", "stopped", "failed", "best");
  for (const auto& e : experiments.value()) {
    if (!options.name.empty() && e.name != options.name) continue;
    auto trials = store.value()->ListTrials(e.id);
    auto best = store.value()->BestTrials(e, 1);
    if (!trials.ok() || !best.ok()) return Fail("cannot read " + e.name);
    std::map<core::TrialStatus, int> counts;
    for (const auto& t : trials.value()) ++counts[t.status];
    std::string best_text = "-";
    if (!best.value().empty()) {
      const auto& b = best.value().front();
      best_text = fmt::format("{}={:.6g} (trial {}, {}={})", e.metric,
                              *b.last_value, b.id, e.time_attr,
                              core::FormatDouble(b.last_time.value_or(0)));
    }
    using S = core::TrialStatus;
    std::printf("%-24s %-11s %7d %7d %9d %7d %6d  %s\n", e.name.c_str(),
                e.status.c_str(), counts[S::kPending], counts[S::kRunning],
                counts[S::kCompleted], counts[S::kStopped], counts[S::kFailed],
                best_text.c_str());
  }
  return kExitOk;
}

}  // namespace tuner::cli
