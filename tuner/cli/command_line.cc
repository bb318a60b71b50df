#include "tuner/cli/command_line.h"

#include <cstdio>
#include <string_view>

#include "tuner/base/closed_pipe.h"
#include "tuner/base/one_line.h"
#include "tuner/cli/own_verbs.h"
#include "tuner/cli/suggest.h"
#include "tuner/cli/version.h"

namespace tuner::cli {

namespace {

constexpr const char* kDbHelp = "SQLite database (default ./tuner.db)";

}  // namespace

CommandLine::CommandLine()
    : app_("tuner: hyperparameter sweeps with asynchronous successive halving",
           "tuner") {
  SetUpRoot();
  for (const Verb& verb : Verbs()) Register(verb);
  for (const Verb& verb : OwnVerbs()) Register(verb);
}

CommandLine::CommandLine(int argc, char** argv)
    : app_("tuner: hyperparameter sweeps with asynchronous successive halving",
           "tuner") {
  SetUpRoot();
  if (const Verb* named = NamedVerb(argc, argv)) {
    Register(*named);
    return;
  }
  for (const Verb& verb : Verbs()) Register(verb);
  for (const Verb& verb : OwnVerbs()) Register(verb);
}

void CommandLine::SetUpRoot() {
  app_.require_subcommand(1);
  app_.set_version_flag("--version", VersionLine());
  app_.add_option("--db", args_.db, kDbHelp);
  app_.footer(
      "`tuner help VERB` (or `tuner VERB --help`) shows a verb's flags");
  args_.root = &app_;
}

const Verb* NamedVerb(int argc, char** argv) {
  int i = 1;
  while (i < argc && std::string_view(argv[i]).starts_with("--db")) {
    std::string_view flag = argv[i];
    if (flag == "--db") {
      i += 2;
    } else if (flag.starts_with("--db=")) {
      i += 1;
    } else {
      return nullptr;  // --dbx: an unknown flag, said by the whole line
    }
  }
  if (i >= argc) return nullptr;
  for (const Verb& verb : Verbs()) {
    if (argv[i] == std::string_view(verb.name)) return &verb;
  }
  return nullptr;
}

void CommandLine::Register(const Verb& verb) {
  CLI::App* command = app_.add_subcommand(verb.name, verb.summary);
  verb.flags(*command, args_);
  if (verb.takes_db) command->add_option("--db", args_.db, kDbHelp);
  commands_.emplace_back(command, &verb);
}

int CommandLine::Run(int argc, char** argv) {
  int code = Dispatch(argc, argv);
  // Cut short by `| head`: quiet, and the status a shell expects.
  return StdoutReaderGone() ? kExitClosedPipe : code;
}

int CommandLine::Dispatch(int argc, char** argv) {
  try {
    app_.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return ParseFailure(e);
  }
  args_.query.db_path = args_.db;
  args_.remote.db_path = args_.db;  // where the CLI finds the service's token
  for (auto [command, verb] : commands_) {
    if (!*command) continue;
    args_.db_given = app_.count("--db") > 0 ||
                     (verb->takes_db && command->count("--db") > 0);
    return verb->run(args_);
  }
  return kExitBadInput;  // require_subcommand(1) rules it out
}

int CommandLine::ParseFailure(const CLI::ParseError& error) {
  // No verb recognised: say what stood in its place, in one line. CLI11
  // would say "A subcommand is required" even for `tuner stauts`.
  std::vector<std::string> rest = app_.remaining();
  bool no_verb = app_.get_subcommands().empty() &&
                 dynamic_cast<const CLI::RequiredError*>(&error) != nullptr;
  if (no_verb && rest.empty()) {
    std::fprintf(stderr, "tuner: a verb is needed (`tuner help` lists them)\n");
    return kExitBadInput;
  }
  if (no_verb && !rest.front().starts_with("-")) {
    return UnknownVerb(app_, rest.front());
  }
  if (no_verb) {
    std::fprintf(stderr, "tuner: unknown flag `%s` (`tuner help` lists them)\n",
                 OneLine(rest.front().substr(0, 80)).c_str());
    return kExitBadInput;
  }
  // --help and --version print through CLI11; any other error is one line
  // that names the verb (CLI11 would add "Run with --help ...").
  if (error.get_exit_code() == 0) return app_.exit(error);
  std::vector<CLI::App*> parsed = app_.get_subcommands();
  std::string verb = parsed.empty() ? "" : " " + parsed.front()->get_name();
  if (!parsed.empty() && dynamic_cast<const CLI::ExtrasError*>(&error)) {
    if (auto flag = UnknownFlag(*parsed.front())) {
      return *flag;
    }
  }
  std::fprintf(stderr, "tuner%s: %s (`tuner help%s` lists its flags)\n",
               verb.c_str(), OneLine(error.what()).c_str(), verb.c_str());
  return kExitBadInput;
}

std::optional<int> UnknownFlag(const CLI::App& verb) {
  std::vector<std::string> rest = verb.remaining();
  if (rest.empty() || !rest.front().starts_with("-")) return std::nullopt;
  std::string typed = rest.front().substr(0, rest.front().find('='));
  std::string word = typed.starts_with("--") ? typed : "-" + typed;
  std::vector<std::string> names;
  for (const CLI::Option* option : verb.get_options()) {
    for (const std::string& name : option->get_lnames())
      names.push_back("--" + name);
  }
  auto meant = Closest(word, names);
  if (!meant) return std::nullopt;
  std::fprintf(stderr, "tuner %s: unknown flag `%s`: did you mean `%s`?\n",
               verb.get_name().c_str(), OneLine(typed.substr(0, 80)).c_str(),
               meant->c_str());
  return kExitBadInput;
}

std::vector<const CLI::App*> VisibleVerbs(const CLI::App& root) {
  return root.get_subcommands(
      [](const CLI::App* verb) { return !verb->get_group().empty(); });
}

int UnknownVerb(const CLI::App& root, const std::string& word) {
  std::vector<std::string> names;
  for (const CLI::App* verb : VisibleVerbs(root)) {
    names.push_back(verb->get_name());
  }
  std::string shown = OneLine(word.substr(0, 80));
  if (auto meant = Closest(word, names)) {
    std::fprintf(stderr, "tuner: unknown verb `%s`: did you mean `%s`?\n",
                 shown.c_str(), meant->c_str());
  } else {
    std::fprintf(stderr, "tuner: unknown verb `%s` (`tuner help` lists them)\n",
                 shown.c_str());
  }
  return kExitBadInput;
}

}  // namespace tuner::cli
