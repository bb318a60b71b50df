#include "tuner/cli/cli_simulate.h"

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "tuner/base/small_file.h"
#include "tuner/base/tuner_lock.h"
#include "tuner/cli/cli.h"
#include "tuner/config/config_loader.h"
#include "tuner/config/stored_config.h"
#include "tuner/sim/replay_table.h"
#include "tuner/sim/simulation.h"

namespace tuner::cli {

namespace {

using sim::ReadCurveTableFile;
using sim::SimulationOptions;
using sim::SimulationResult;
using sim::TableFromExperiment;

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

core::Result<ExperimentConfig> ReadConfig(const SimulateOptions& options,
                                          std::string& text) {
  auto read = ReadSmallFile(options.config_path, kMaxConfigBytes);
  if (!read.ok()) return read.error();
  text = read.value();
  std::string base = fs::current_path().string();
  auto config = LoadConfigText(text, options.config_path, base, base,
                               options.overrides.List());
  if (!config.ok()) return config;
  if (options.seed) {
    config.value().searcher.seed = *options.seed;
    config.value().scheduler.seed = *options.seed;
    config.value().seed_given = true;
  }
  return config;
}

// The stored config, marked simulated (resume refuses it; listings say so).
std::string StoredJson(const ExperimentConfig& config, const std::string& text,
                       const SimulateOptions& options,
                       const std::string& db_path) {
  std::string base = fs::current_path().string();
  Json json = Json::parse(
      StoredConfigJson(config, text, options.config_path, base, db_path));
  Json simulated = {{"workers", options.workers}};
  if (options.from_experiment.empty()) {
    simulated["table"] = fs::absolute(options.table_path).string();
  } else {
    simulated["from_experiment"] = options.from_experiment;
  }
  json["simulated"] = simulated;
  return WithOverrides(
      json.dump(-1, ' ', false, Json::error_handler_t::replace),
      options.overrides.List());
}

const char* OutcomeName(const SimulationResult& r) {
  switch (r.outcome) {
    case SweepOutcome::kFinished:
      return "finished";
    case SweepOutcome::kInterrupted:
      return "interrupted";
    default:
      return "failed";
  }
}

void PrintJson(const ExperimentConfig& config, const SimulationResult& r,
               bool replay) {
  Json out = {{"experiment", config.name},
              {"outcome", OutcomeName(r)},
              {"metric", config.metric},
              {"mode", std::string(core::ToString(config.mode))},
              {"max_t", r.max_t},
              {"best", r.best ? Json(*r.best) : Json()},
              {"best_trial", r.best_trial ? Json(*r.best_trial) : Json()},
              {"makespan_s", r.makespan_s},
              {"device_s", r.device_s},
              {"trials", r.trials},
              {"trajectory", Json::array()}};
  for (const auto& [t, best] : r.trajectory)
    out["trajectory"].push_back({t, best});
  if (replay) out["unknown_decisions"] = r.truncated_ends;
  std::printf("%s\n", out.dump().c_str());
}

void PrintTable(const ExperimentConfig& config, const SimulationResult& r,
                const SimulateOptions& options, const std::string& db_path,
                bool replay) {
  std::printf("simulated '%s': %lld trials on %d worker%s\n",
              config.name.c_str(), static_cast<long long>(r.trials),
              options.workers, options.workers == 1 ? "" : "s");
  if (r.best) {
    std::printf("best %s %s (trial %lld), among trials that reached %s %s\n",
                config.metric.c_str(), core::FormatDouble(*r.best).c_str(),
                static_cast<long long>(*r.best_trial), config.time_attr.c_str(),
                core::FormatDouble(r.max_t).c_str());
  } else {
    std::printf("no trial reached %s %s\n", config.time_attr.c_str(),
                core::FormatDouble(r.max_t).c_str());
  }
  std::printf("makespan %.0f s (%.1f h) simulated; device time %.0f s\n",
              r.makespan_s, r.makespan_s / 3600, r.device_s);
  for (const auto& [t, best] : r.trajectory)
    std::printf("  at %10.0f s  best %s\n", t,
                core::FormatDouble(best).c_str());
  if (replay) {
    std::printf(
        "%lld trials needed reports the replayed experiment never made "
        "(its scheduler stopped them earlier): their results are unknown\n",
        static_cast<long long>(r.truncated_ends));
  }
  std::printf("stored: tuner best %s --db %s\n", config.name.c_str(),
              db_path.c_str());
}

}  // namespace

int Simulate(const SimulateOptions& options) {
  if (options.table_path.empty() == options.from_experiment.empty())
    return Fail("give either --table FILE or --from-experiment NAME",
                kExitBadInput);
  std::string text;
  auto config = ReadConfig(options, text);
  if (!config.ok()) return Fail(config.message(), kExitBadInput);
  std::string db_path = cli::DatabasePath(config.value(), options.db_path);
  auto store = storage::TrialStore::Open(db_path);
  if (!store.ok()) {
    std::fprintf(stderr, "tuner: %s\n", store.message().c_str());
    return cli::kExitFailure;
  }
  auto existing = store.value()->experiments().Find(config.value().name);
  if (existing.ok() && existing.value()) {
    return Fail("experiment '" + config.value().name + "' exists in " +
                    db_path + "; give the simulation another name (--name)",
                kExitBadInput);
  }
  bool replay = !options.from_experiment.empty();
  auto table =
      replay ? TableFromExperiment(*store.value(), options.from_experiment,
                                   config.value().time_attr)
             : ReadCurveTableFile(options.table_path, config.value().time_attr);
  if (!table.ok()) return Fail(table.message(), kExitBadInput);
  SimulationOptions sim;
  sim.workers = options.workers;
  sim.stop_on_signals = true;
  std::string stored = StoredJson(config.value(), text, options, db_path);
  auto result =
      sim::Simulate(config.value(), stored, table.value(), *store.value(), sim);
  if (!result.ok()) {
    // Another simulation took the name after the check above.
    bool bad = result.error().code == core::ErrorCode::kInvalidArgument ||
               result.error().code == core::ErrorCode::kAlreadyExists;
    return Fail(result.message(), bad ? kExitBadInput : kExitFailure);
  }
  if (options.format == "json") {
    PrintJson(config.value(), result.value(), replay);
  } else {
    PrintTable(config.value(), result.value(), options, db_path, replay);
  }
  if (int signal = result.value().signal) {
    std::fprintf(stderr,
                 "tuner: %s: stopped by %s; '%s' is stored as interrupted\n",
                 db_path.c_str(), signal == SIGINT ? "SIGINT" : "SIGTERM",
                 config.value().name.c_str());
    return 128 + signal;
  }
  if (result.value().outcome != SweepOutcome::kFinished) {
    std::fprintf(stderr, "tuner: %s: %s\n", db_path.c_str(),
                 result.value().error.c_str());
    return cli::kExitFailure;
  }
  if (result.value().trials < config.value().num_trials) {
    std::fprintf(stderr,
                 "tuner: note: '%s' ended after %lld of its num_trials %lld: "
                 "each of the table's rows runs at most once, and none was "
                 "left\n",
                 config.value().name.c_str(),
                 static_cast<long long>(result.value().trials),
                 static_cast<long long>(config.value().num_trials));
  }
  return cli::kExitOk;
}

}  // namespace tuner::cli
