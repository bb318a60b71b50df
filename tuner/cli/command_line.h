// The whole `tuner` command line as one CLI11 App named `tuner`: the verb
// table (verbs.h) and the verbs about the command line itself (own_verbs.h:
// help, version, completion). main() builds one and runs it; `tuner
// completion` and the man page are written from the same App, so a verb
// added to either table appears in them without further work.
#ifndef TUNER_TUNER_CLI_COMMAND_LINE_H_
#define TUNER_TUNER_CLI_COMMAND_LINE_H_

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tuner/cli/verbs.h"

namespace tuner::cli {

class CommandLine {
 public:
  // Every verb: the whole command line.
  CommandLine();
  // For parsing `argv` only: the verb it names (NamedVerb) alone when it
  // names one of Verbs(), else every verb. Parses and runs `argv` as the
  // whole command line would, without building the other verbs' flags
  // (a `tuner best` starts in less time).
  CommandLine(int argc, char** argv);
  CommandLine(const CommandLine&) = delete;
  CommandLine& operator=(const CommandLine&) = delete;

  // Parses argv and runs the verb it names; returns the exit code (2 for
  // anything CLI11 refuses, with its message on stderr; 0 for --help and
  // --version; kExitClosedPipe, silently, when stdout's reader left before
  // all of it was written). Call once.
  int Run(int argc, char** argv);

  // Every verb and flag, as registered (what the completion scripts and the
  // man page are written from).
  const CLI::App& app() const { return app_; }

 private:
  // The root App and its global flags, without any verb.
  void SetUpRoot();
  void Register(const Verb& verb);
  // Run without the closed-pipe check.
  int Dispatch(int argc, char** argv);
  int ParseFailure(const CLI::ParseError& error);

  CLI::App app_;
  Arguments args_;
  std::vector<std::pair<CLI::App*, const Verb*>> commands_;
};

// The verb of Verbs() (not one about the command line itself, which lists
// the others) that `argv` names: its first word after the global flags
// (`--db PATH`); none when it names no such verb.
const Verb* NamedVerb(int argc, char** argv);

// The verbs `tuner --help` lists (hidden ones left out), in its order.
std::vector<const CLI::App*> VisibleVerbs(const CLI::App& root);

// Says on stderr, in one line, that `word` is no verb, with the verb it
// most likely meant ("did you mean `status`?"); returns kExitBadInput.
int UnknownVerb(const CLI::App& root, const std::string& word);

// A mistyped flag of `verb` (the first of its unparsed words, `--frmat`):
// says which flag it likely meant and returns kExitBadInput; none when no
// flag of the verb is near enough.
std::optional<int> UnknownFlag(const CLI::App& verb);

}  // namespace tuner::cli

#endif  // TUNER_TUNER_CLI_COMMAND_LINE_H_
