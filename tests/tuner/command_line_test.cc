// The command line's conventions without a process: the verb a typo meant,
// and the completion scripts and man page written from the registered App.
#include "tuner/cli/command_line.h"

#include <string>
#include <vector>

#include "tests/catch.h"
#include "tuner/cli/cli_model.h"
#include "tuner/cli/completion.h"
#include "tuner/cli/man_page.h"
#include "tuner/cli/suggest.h"
#include "tuner/config/config_values.h"

namespace tuner::cli {
namespace {

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST_CASE("a mistyped verb finds the one it meant", "[tuner][cli]") {
  std::vector<std::string> verbs = {"run",    "plan", "best",   "trials",
                                    "status", "stop", "resume", "serve"};
  CHECK(config::EditDistance("stauts", "status") == 1);  // a swap is one edit
  CHECK(config::EditDistance("", "run") == 3);
  CHECK(Closest("stauts", verbs) == "status");
  CHECK(Closest("bets", verbs) == "best");
  CHECK(Closest("tirals", verbs) == "trials");
  CHECK(Closest("resme", verbs) == "resume");
  CHECK(Closest("stat", verbs) == "status");  // the only verb it starts
  CHECK_FALSE(Closest("frobnicate", verbs));
  CHECK_FALSE(Closest("s", verbs));  // starts several: no guess
  CHECK_FALSE(Closest("", verbs));
  CHECK_FALSE(Closest(std::string(100000, 'x'), verbs));  // stays cheap
}

TEST_CASE("completion and man page come from the registered verbs",
          "[tuner][cli]") {
  CommandLine command_line;
  const CLI::App& app = command_line.app();
  std::vector<VerbModel> verbs = DescribeVerbs(app);
  std::vector<std::string> names;
  for (const auto& verb : verbs) names.push_back(verb.name);
  CHECK(std::find(names.begin(), names.end(), "status") != names.end());
  CHECK(std::find(names.begin(), names.end(), "help") != names.end());
  // Hidden verbs stay out of the lists.
  CHECK(std::find(names.begin(), names.end(), "experiment-names") ==
        names.end());

  std::string bash = BashCompletion(app);
  std::string zsh = ZshCompletion(app);
  std::string man = ManPage(app, "9.9.9");
  for (const auto& name : names) {
    INFO(name);
    CHECK(Has(bash, "'" + name + "') opts="));
    CHECK(Has(zsh, "    " + name + ") _arguments"));
    CHECK(Has(man, ".SS \\fBtuner " + name));
  }
  // A flag's choices, the positional kinds, the root's flags.
  CHECK(Has(bash,
            "'devices:--kind') COMPREPLY=($(compgen -W 'auto habana neuron "
            "cuda cpu'"));
  CHECK(Has(bash,
            "'stop') opts='-h --help --detach --force --server "
            "--token-file --allow-plain-http --db'; valued='--server "
            "--token-file --db'; "
            "positional='name'"));
  CHECK(Has(bash, "valued='--set --name --db'; positional='files'"));  // run
  CHECK(Has(bash,
            "'completion') opts='-h --help'; valued=''; "
            "positional='choices:bash zsh'"));
  CHECK(Has(zsh,
            "'--kind=[auto | habana | neuron | cuda | cpu]:TEXT:(auto "
            "habana neuron cuda cpu)'"));
  CHECK(Has(zsh, "'1:name:_tuner_names'"));
  CHECK(Has(man, ".TH TUNER 1 \"\" \"tuner 9.9.9\""));
  CHECK(Has(man, "\\fB\\-\\-kind\\fR \\fIauto|habana|neuron|cuda|cpu\\fR"));
}

}  // namespace
}  // namespace tuner::cli

namespace tuner::cli {
namespace {

// argv of `words` (argv[0] first), alive as long as it is.
struct Argv {
  explicit Argv(std::vector<std::string> w) : words(std::move(w)) {
    for (auto& word : words) pointers.push_back(word.data());
  }
  int argc() const { return static_cast<int>(pointers.size()); }
  char** argv() { return pointers.data(); }
  std::vector<std::string> words;
  std::vector<char*> pointers;
};

std::string NamedBy(std::vector<std::string> words) {
  Argv args(std::move(words));
  const Verb* verb = NamedVerb(args.argc(), args.argv());
  return verb ? verb->name : "";
}

TEST_CASE("the verb a command line names, after the global flags",
          "[tuner][cli]") {
  CHECK(NamedBy({"tuner", "best", "exp"}) == "best");
  CHECK(NamedBy({"tuner", "--db", "x.db", "status", "exp"}) == "status");
  CHECK(NamedBy({"tuner", "--db=x.db", "trials"}) == "trials");
  // The verbs about the command line list the others: no single verb.
  CHECK(NamedBy({"tuner", "help", "best"}).empty());
  CHECK(NamedBy({"tuner", "completion", "bash"}).empty());
  CHECK(NamedBy({"tuner", "bets"}).empty());
  CHECK(NamedBy({"tuner"}).empty());
  CHECK(NamedBy({"tuner", "--db"}).empty());
  CHECK(NamedBy({"tuner", "--dbx", "best"}).empty());
  CHECK(NamedBy({"tuner", "--version"}).empty());
}

TEST_CASE(
    "a command line built for one verb has that verb's flags as the "
    "whole one has them",
    "[tuner][cli]") {
  CommandLine whole;
  for (const Verb& verb : Verbs()) {
    INFO(verb.name);
    Argv args({"tuner", verb.name});
    CommandLine one(args.argc(), args.argv());
    auto subcommands =
        one.app().get_subcommands([](const CLI::App*) { return true; });
    REQUIRE(subcommands.size() == 1);
    const CLI::App* alone = subcommands.front();
    const CLI::App* among = whole.app().get_subcommand(verb.name);
    auto names = [](const CLI::App* app) {
      std::vector<std::string> out;
      for (const CLI::Option* option : app->get_options()) {
        out.push_back(option->get_name());
      }
      return out;
    };
    CHECK(alone->get_name() == among->get_name());
    CHECK(names(alone) == names(among));
    CHECK(one.app().get_options().size() == whole.app().get_options().size());
  }
}

}  // namespace
}  // namespace tuner::cli
