// The `tuner` command line as a table of verbs (Ninja's Tool table): each
// verb has a name, a one-line summary, the flags it takes and the function
// that runs it. main() registers the table with CLI11, parses, and runs the
// verb that was named; adding a verb is adding a row.
#ifndef TUNER_TUNER_CLI_VERBS_H_
#define TUNER_TUNER_CLI_VERBS_H_

#include <CLI/CLI.hpp>
#include <span>
#include <string>

#include "tuner/cli/cli.h"
#include "tuner/cli/cli_remote.h"
#include "tuner/cli/cli_simulate.h"
#include "tuner/server/serve.h"

namespace tuner::cli {

// Every verb's options; CLI11 writes the ones of the verb named.
struct Arguments {
  std::string db = "tuner.db";  // --db, before or after the verb
  bool db_given = false;        // set by main() after parsing
  RunOptions run;
  PlanOptions plan;
  SimulateOptions simulate;
  QueryOptions query;
  StopOptions stop;
  DevicesOptions devices;
  server::ServeOptions serve;
  RemoteOptions remote;  // --server and --token-file
  std::string submit_path;
  // The command line itself (set before a verb runs): `tuner help` and
  // `tuner completion` read the verbs from it.
  CLI::App* root = nullptr;
  std::string help_verb;  // tuner help [VERB]
  std::string shell;      // tuner completion SHELL
  DeleteOptions del;
  ExtendOptions extend;
};

struct Verb {
  const char* name;
  const char* summary;
  // Adds the verb's positional arguments and flags to `command`.
  void (*flags)(CLI::App& command, Arguments& args);
  // Runs it; returns the process exit code.
  int (*run)(Arguments& args);
  // Takes --db (the database it reads or writes).
  bool takes_db = true;
};

// Every verb, in the order `tuner --help` lists them.
std::span<const Verb> Verbs();

}  // namespace tuner::cli

#endif  // TUNER_TUNER_CLI_VERBS_H_
