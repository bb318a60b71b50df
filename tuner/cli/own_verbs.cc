#include "tuner/cli/own_verbs.h"

#include <unistd.h>

#include <cstdio>

#include "storage/trial_store.h"
#include "tuner/base/tuner_lock.h"
#include "tuner/cli/command_line.h"
#include "tuner/cli/completion.h"
#include "tuner/cli/man_page.h"
#include "tuner/cli/version.h"
#include "tuner/config/config_values.h"

namespace tuner::cli {

namespace {

void HelpFlags(CLI::App& c, Arguments& a) {
  c.add_option("verb", a.help_verb, "the verb to explain (else all of them)");
}
int HelpVerb(Arguments& a) {
  if (a.help_verb.empty()) {
    // Not root->help(): it would explain the verb parsed, `help` itself.
    std::string help = a.root->get_formatter()->make_help(
        a.root, a.root->get_name(), CLI::AppFormatMode::Normal);
    std::fputs(help.c_str(), stdout);
    return kExitOk;
  }
  for (const CLI::App* verb : a.root->get_subcommands({})) {
    if (verb->get_name() != a.help_verb) continue;
    std::fputs(verb->help(a.root->get_name()).c_str(), stdout);
    return kExitOk;
  }
  return UnknownVerb(*a.root, a.help_verb);
}

void VersionFlags(CLI::App&, Arguments&) {}
// The version, and the tuner-shim this binary starts trials under (beside
// it): what a broken installation shows first.
int VersionVerb(Arguments&) {
  std::string shim = ShimPath();
  bool found = access(shim.c_str(), X_OK) == 0;
  std::printf("%s\ntuner-shim: %s%s\n", VersionLine().c_str(), shim.c_str(),
              found ? "" : " (missing)");
  return found ? kExitOk : kExitFailure;
}

void CompletionFlags(CLI::App& c, Arguments& a) {
  c.add_option("shell", a.shell, "bash | zsh")
      ->required()
      ->check(CLI::IsMember({"bash", "zsh"}));
}
int CompletionVerb(Arguments& a) {
  std::string script =
      a.shell == "zsh" ? ZshCompletion(*a.root) : BashCompletion(*a.root);
  std::fputs(script.c_str(), stdout);
  return kExitOk;
}

void ManPageFlags(CLI::App& c, Arguments&) { c.group(""); }
int ManPageVerb(Arguments& a) {
  std::fputs(ManPage(*a.root, VersionNumber()).c_str(), stdout);
  return kExitOk;
}

void NamesFlags(CLI::App& c, Arguments&) { c.group(""); }
// Read-only and silent: a missing or unreadable database lists nothing.
// Only names that pass the name rule: a crafted database hands the
// completion scripts nothing a shell could take for code.
int NamesVerb(Arguments& a) {
  auto store = storage::TrialStore::OpenReadOnly(a.db);
  if (!store.ok()) return kExitOk;
  auto experiments = store.value()->experiments().List();
  if (!experiments.ok()) return kExitOk;
  for (const auto& experiment : experiments.value()) {
    if (!config::IsName(experiment.name)) continue;
    std::printf("%s\n", experiment.name.c_str());
  }
  return kExitOk;
}

constexpr Verb kOwnVerbs[] = {
    {"help", "how to use tuner, or one verb (same as `tuner VERB --help`)",
     HelpFlags, HelpVerb, false},
    {"version", "the version, and the tuner-shim it runs trials under",
     VersionFlags, VersionVerb, false},
    {"completion", "the shell completion script for bash or zsh",
     CompletionFlags, CompletionVerb, false},
    {"man-page", "", ManPageFlags, ManPageVerb, false},
    {"experiment-names", "", NamesFlags, NamesVerb},
};

}  // namespace

std::span<const Verb> OwnVerbs() { return kOwnVerbs; }

}  // namespace tuner::cli
