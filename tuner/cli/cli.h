// The verbs of the `tuner` command line. Each returns the process exit code.
#ifndef TUNER_TUNER_CLI_CLI_H_
#define TUNER_TUNER_CLI_CLI_H_

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "tuner/base/one_line.h"
#include "tuner/config/experiment_config.h"

namespace tuner::cli {

// Exit codes: 0 success, 1 failure, 2 bad input (config or arguments),
// 130/143 interrupted by SIGINT/SIGTERM.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitBadInput = 2;

// 2 for a request that cannot be met (kInvalidArgument), 1 for what is
// missing or broken.
inline int ExitCodeOf(const core::Error& error) {
  return error.code == core::ErrorCode::kInvalidArgument ? kExitBadInput
                                                         : kExitFailure;
}

// Prints the verbs' one-line error, "tuner: MESSAGE" (MESSAGE through
// OneLine), on stderr; returns `code`.
inline int Fail(const std::string& message, int code = kExitFailure) {
  std::fprintf(stderr, "tuner: %s\n", OneLine(message).c_str());
  return code;
}

// --set KEY=VALUE and --name: what `run`, `submit`, `plan` and `simulate`
// change in the config they load.
struct ConfigOverrides {
  std::vector<std::string> sets;    // --set KEY=VALUE, in order
  std::optional<std::string> name;  // --name: the experiment's name
  // As LoadConfigText takes them: the --set ones, then the --name one
  // (config::NameOverride; last, so that it wins).
  std::vector<std::string> List() const;
};

struct RunOptions {
  std::string config_path;
  std::optional<std::string>
      db_path;  // --db; else the config's, else ./tuner.db
  // --quiet: warnings, errors and the final summary only.
  bool quiet = false;
  ConfigOverrides overrides;
};
int Run(const RunOptions& options);

// The database a verb that takes a config uses: `flag` (--db) if given,
// else the config's `storage` (relative to its workdir), else ./tuner.db.
std::string DatabasePath(const ExperimentConfig& config,
                         const std::optional<std::string>& flag);

struct QueryOptions {
  std::string db_path = "tuner.db";
  std::string name;
  int64_t top = 1;
  std::string format = "table";
  bool quiet = false;       // resume --quiet: as RunOptions::quiet
  std::string by = "last";  // best: last | best (see storage::BestBy)
};
int Best(const QueryOptions& options);
// Every stored report of an experiment, one row each (the learning curves).
int Reports(const QueryOptions& options);
// Takes up an unfinished experiment: adopts its running trials, goes on.
int Resume(const QueryOptions& options);

struct StopOptions {
  std::string db_path = "tuner.db";
  std::string name;
  bool detach = false;  // leave the trials running for a later resume
  bool force = false;   // kill the trials at once
  std::chrono::milliseconds wait{120000};  // for the tuner to exit
};
// Asks the tuner running experiment `name` to stop (SIGTERM: trials stopped,
// state saved), to kill its trials (force), or to detach from them.
int Stop(const StopOptions& options);

struct PlanOptions {
  std::string config_path;
  ConfigOverrides overrides;
  std::optional<double> unit_seconds;    // seconds one time_attr unit takes
  std::optional<double> price_per_hour;  // of the instance
  std::optional<int> devices;  // the target machine's, if not this one
  std::string format = "text";
};
// A dry run: brackets, rungs, expected trials per rung, the budget.
int Plan(const PlanOptions& options);
int Trials(const QueryOptions& options);

struct DevicesOptions {
  std::optional<std::string> config_path;  // take its devices section
  std::string kind = "auto";               // without a config
  std::optional<std::string> lock_dir;     // else the config's/default
  std::string format = "text";             // text | json
};
// The inventory: each device's ids, memory, and whether it is free, leased
// (by which tuner, experiment and trial) or busy with a foreign process.
int Devices(const DevicesOptions& options);
int Status(const QueryOptions& options);

struct DeleteOptions {
  std::string db_path = "tuner.db";
  std::string name;
  bool yes = false;  // do not ask
};
// Deletes an experiment: its rows and its files (cli_delete.cc). Asks on a
// terminal unless `yes`; refuses (2) without `yes` when stdin is not one,
// and (1) while a tuner or the service runs it.
int Delete(const DeleteOptions& options);
// Asks "QUESTION [y/N] " on stderr and reads the answer from stdin, or
// refuses with one line naming `flag` when stdin is not a terminal.
// kNotFound saying what the read verbs say when there is no file at
// `path` ("no database at ./x.db (run `tuner run CONFIG` first, ...)");
// kInvalidArgument when `path` is a folder or another non-file.
core::Status DatabaseThere(const std::string& path);

// 0: yes; kExitFailure: declined; kExitBadInput: not a terminal.
int Confirm(const std::string& question, const std::string& flag);

struct ExtendOptions {
  std::string db_path = "tuner.db";
  std::string name;
  int64_t trials = 0;  // added to the budget
  bool run = false;    // then resume it here (a stopped or finished one)
  bool quiet = false;  // --run --quiet: as resume --quiet
};
// Adds trials to an experiment's budget (cli_extend.cc).
int Extend(const ExtendOptions& options);

}  // namespace tuner::cli

#endif  // TUNER_TUNER_CLI_CLI_H_
