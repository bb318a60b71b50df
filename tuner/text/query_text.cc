#include "tuner/text/query_text.h"

#include <fmt/format.h>

#include <map>

#include "tuner/base/one_line.h"
#include "tuner/config/launch_spec.h"
#include "tuner/config/stored_config.h"
#include "tuner/text/trial_format.h"

namespace tuner {

namespace {

using storage::ExperimentRecord;
using storage::TrialRecord;
using storage::TrialStore;

core::Result<std::string> Render(const std::vector<TrialRecord>& trials,
                                 const ExperimentRecord& experiment,
                                 const std::string& format) {
  if (format == "json") {
    nlohmann::ordered_json array = nlohmann::ordered_json::array();
    for (const auto& t : trials) array.push_back(TrialJson(t));
    // Text stored by older versions may not be UTF-8: U+FFFD, not a throw.
    return array.dump(2, ' ', false,
                      nlohmann::ordered_json::error_handler_t::replace) +
           "\n";
  }
  if (format == "yaml") return TrialsYaml(trials);
  if (format == "args") {
    auto config = LoadStoredConfig(experiment.config_json);
    if (!config.ok()) return config.error();
    std::string out;
    for (const auto& t : trials)
      out += FlagsFor(config.value(), t.params) + "\n";
    return out;
  }
  if (format != "table") {
    return core::InvalidArgument("unknown format '" + format +
                                 "' (table, json, yaml or args)");
  }
  std::string table = TrialsTable(trials, experiment);
  if (!experiment.reason.empty())
    table += "experiment failed because: " + OneLine(experiment.reason) + "\n";
  return table;
}

std::string BestCell(const ExperimentRecord& e,
                     const std::vector<TrialRecord>& best) {
  if (best.empty()) return "-";
  const auto& b = best.front();
  return fmt::format("{}={:.6g} (trial {}, {}={})", e.metric, *b.last_value,
                     b.id, e.time_attr,
                     core::FormatDouble(b.last_time.value_or(0)));
}

}  // namespace

core::Result<ExperimentRecord> FindExperimentIn(TrialStore& store,
                                                const std::string& name,
                                                const std::string& where) {
  auto found = store.FindExperiment(name);
  if (!found.ok()) return found.error();
  if (found.value()) return *found.value();
  std::string names;
  if (auto all = store.ListExperiments(); all.ok()) {
    for (const auto& e : all.value())
      names += (names.empty() ? "" : ", ") + e.name;
  }
  return core::NotFound(
      fmt::format("no experiment '{}' in {}{}", name, where,
                  names.empty() ? "" : " (it has: " + names + ")"));
}

core::Result<std::string> TrialsText(TrialStore& store,
                                     const ExperimentRecord& e,
                                     const std::string& format) {
  if (format == "args") {
    return core::InvalidArgument("format 'args' is for best only");
  }
  auto trials = store.ListTrials(e.id);
  if (!trials.ok()) return trials.error();
  return Render(trials.value(), e, format);
}

core::Result<std::string> BestText(TrialStore& store, const ExperimentRecord& e,
                                   int64_t top, const std::string& format) {
  auto trials = store.BestTrials(e, top);
  if (!trials.ok()) return trials.error();
  if (trials.value().empty()) {
    return core::NotFound("experiment '" + e.name +
                          "' has no trial with a value yet");
  }
  return Render(trials.value(), e, format);
}

core::Result<std::string> StatusText(TrialStore& store,
                                     const std::string& name) {
  auto experiments = store.ListExperiments();
  if (!experiments.ok()) return experiments.error();
  std::string out = fmt::format(
      "{:<24} {:<11} {:>7} {:>7} {:>9} {:>7} {:>6}  {}\n", "experiment",
      "status", "pending", "running", "completed", "stopped", "failed", "best");
  for (const auto& e : experiments.value()) {
    if (!name.empty() && e.name != name) continue;
    auto counts = store.CountTrials(e.id);
    auto best = store.BestTrials(e, 1);
    if (!counts.ok()) return counts.error();
    if (!best.ok()) return best.error();
    auto count = [&counts](core::TrialStatus s) {
      auto it = counts.value().find(s);
      return it == counts.value().end() ? int64_t{0} : it->second;
    };
    using S = core::TrialStatus;
    out += fmt::format("{:<24} {:<11} {:>7} {:>7} {:>9} {:>7} {:>6}  {}\n",
                       e.name, e.status, count(S::kPending), count(S::kRunning),
                       count(S::kCompleted), count(S::kStopped),
                       count(S::kFailed), BestCell(e, best.value()));
    if (!e.reason.empty())
      out += "  failed because: " + OneLine(e.reason) + "\n";
  }
  return out;
}

}  // namespace tuner
