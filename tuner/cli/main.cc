// tuner: hyperparameter sweeps with asynchronous successive halving. The
// verbs are a table (verbs.h); main() only registers, parses and runs one.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <vector>

#include "tuner/cli/verbs.h"
#include "tuner/text/terminal.h"

int main(int argc, char** argv) {
  auto logger = spdlog::stderr_color_mt(  // NO_COLOR, TERM=dumb: no escapes
      "tuner", tuner::EscapesAllowedHere() ? spdlog::color_mode::automatic
                                           : spdlog::color_mode::never);
  logger->set_pattern("tuner: %^%l%$: %v");
  spdlog::set_default_logger(logger);

  CLI::App app{
      "tuner: hyperparameter sweeps with asynchronous successive halving"};
  app.require_subcommand(1);
  tuner::cli::Arguments args;
  const char* db_help = "SQLite database (default ./tuner.db)";
  app.add_option("--db", args.db, db_help);
  std::vector<CLI::App*> commands;
  for (const tuner::cli::Verb& verb : tuner::cli::Verbs()) {
    CLI::App* command = app.add_subcommand(verb.name, verb.summary);
    verb.flags(*command, args);
    if (verb.takes_db) command->add_option("--db", args.db, db_help);
    commands.push_back(command);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : tuner::cli::kExitBadInput;
  }
  args.query.db_path = args.db;
  args.remote.db_path = args.db;  // where the CLI finds the service's token
  for (size_t i = 0; i < commands.size(); ++i) {
    if (!*commands[i]) continue;
    const tuner::cli::Verb& verb = tuner::cli::Verbs()[i];
    args.db_given = app.count("--db") > 0 ||
                    (verb.takes_db && commands[i]->count("--db") > 0);
    return verb.run(args);
  }
  return tuner::cli::kExitBadInput;  // require_subcommand(1) rules it out
}
