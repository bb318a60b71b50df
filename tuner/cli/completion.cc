#include "tuner/cli/completion.h"

#include <fmt/format.h>

#include "tuner/cli/cli_model.h"

namespace tuner::cli {

namespace {

std::string Join(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& word : words) out += (out.empty() ? "" : " ") + word;
  return out;
}

std::vector<std::string> VerbNames(const std::vector<VerbModel>& verbs) {
  std::vector<std::string> names;
  for (const auto& verb : verbs) names.push_back(verb.name);
  return names;
}

// --- bash

// What the first positional of a verb completes to, as _tuner reads it.
std::string BashPositional(const VerbModel& verb) {
  if (verb.positionals.empty()) return "";
  const PositionalModel& first = verb.positionals.front();
  switch (first.kind) {
    case ArgumentKind::kExperiment:
      return "name";
    case ArgumentKind::kVerb:
      return "verbs";
    case ArgumentKind::kChoice:
      return "choices:" + Join(first.choices);
    case ArgumentKind::kFile:
      return "files";
  }
  return "";
}

// One `case $verb` arm: the verb's flags, those taking a value, and what its
// positional is.
std::string BashVerbArm(const VerbModel& verb) {
  std::vector<std::string> all, valued;
  for (const FlagModel& flag : verb.flags) {
    for (const auto& name : flag.names) {
      all.push_back(name);
      if (flag.takes_value) valued.push_back(name);
    }
  }
  return fmt::format("    '{}') opts='{}'; valued='{}'; positional='{}' ;;\n",
                     verb.name, Join(all), Join(valued), BashPositional(verb));
}

// `case $verb:$prev` arms for the flags with a fixed set of values.
std::string BashChoiceArms(const VerbModel& verb) {
  std::string arms;
  for (const FlagModel& flag : verb.flags) {
    if (flag.choices.empty()) continue;
    for (const auto& name : flag.names) {
      arms += fmt::format(
          "    '{}:{}') COMPREPLY=($(compgen -W '{}' -- \"$cur\")); return "
          ";;\n",
          verb.name, name, Join(flag.choices));
    }
  }
  return arms;
}

constexpr const char* kBashHead =
    R"sh(# bash completion for tuner, written by `tuner completion bash` from the
# command line's own definition. Install: share/bash-completion/completions/tuner,
# or `source <(tuner completion bash)`.
_tuner() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=''
  ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
  local verb='' db=tuner.db i=1 word
  # The verb is the first word that is no flag; --db (before or after it)
  # names the database whose experiments NAME completes to.
  while ((i < COMP_CWORD)); do
    word=${COMP_WORDS[i]}
    case $word in
      --db)
        if [[ ${COMP_WORDS[i + 1]} == = ]]; then ((i++)); fi
        ((i + 1 < COMP_CWORD)) && db=${COMP_WORDS[i + 1]}
        ((i++)) ;;
      --db=*) db=${word#--db=} ;;  # COMP_WORDBREAKS without '='
      -*) ;;
      *) [[ -z $verb ]] && verb=$word ;;
    esac
    ((i++))
  done
  [[ $cur == = ]] && cur=''
  local opts valued positional
  case $verb in
)sh";

constexpr const char* kBashTail =
    R"sh(  if [[ -n $prev && " $valued " == *" $prev "* ]]; then return; fi  # a path
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
    return
  fi
  case $positional in
    name)
      # Names are data: read as lines, kept by a plain prefix test, never
      # expanded as words (compgen -W would run a name like $(cmd)).
      local names name
      mapfile -t names < <("${COMP_WORDS[0]}" experiment-names --db "$db" 2>/dev/null)
      for name in "${names[@]}"; do
        [[ $name == "$cur"* ]] && COMPREPLY+=("$name")
      done ;;
    verbs) COMPREPLY=($(compgen -W "$_tuner_verbs" -- "$cur")) ;;
    choices:*) COMPREPLY=($(compgen -W "${positional#choices:}" -- "$cur")) ;;
  esac
}
complete -o bashdefault -o default -F _tuner tuner
)sh";

// --- zsh

// Text inside single quotes in an _arguments spec or a _describe entry.
std::string ZshQuoted(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\'') {
      out += "'\\''";
    } else if (c == '[' || c == ']' || c == ':' || c == '\\') {
      out += '\\';
      out += c;
    } else {
      out += c;
    }
  }
  return out;
}

// A `_describe` entry: NAME:DESCRIPTION, in single quotes.
std::string ZshEntry(const std::string& name, const std::string& summary) {
  std::string entry = ZshQuoted(name) + ":";
  for (char c : summary)
    entry += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return "'" + entry + "'";
}

std::string ZshAction(const FlagModel& flag) {
  if (!flag.choices.empty()) return "(" + Join(flag.choices) + ")";
  return flag.type == "TEXT" ? "_files" : " ";  // numbers: no completion
}

std::string ZshPositionalAction(const PositionalModel& positional,
                                const std::vector<std::string>& verbs) {
  switch (positional.kind) {
    case ArgumentKind::kExperiment:
      return "_tuner_names";
    case ArgumentKind::kVerb:
      return "(" + Join(verbs) + ")";
    case ArgumentKind::kChoice:
      return "(" + Join(positional.choices) + ")";
    case ArgumentKind::kFile:
      return "_files";
  }
  return "_files";
}

// The _arguments specs of a verb's flags and positionals, one a line.
std::string ZshSpecs(const VerbModel& verb,
                     const std::vector<std::string>& verbs) {
  std::string specs;
  for (const FlagModel& flag : verb.flags) {
    for (const auto& name : flag.names) {
      // --db=: the value in the next word or after '=', as CLI11 takes it.
      bool long_valued = flag.takes_value && name.starts_with("--");
      specs += fmt::format(" \\\n      '{}{}[{}]", name, long_valued ? "=" : "",
                           ZshQuoted(flag.description));
      if (flag.takes_value) {
        specs += fmt::format(":{}:{}", ZshQuoted(flag.type), ZshAction(flag));
      }
      specs += "'";
    }
  }
  int index = 1;
  for (const PositionalModel& positional : verb.positionals) {
    specs += fmt::format(" \\\n      '{}:{}:{}'", index++,
                         ZshQuoted(positional.name),
                         ZshPositionalAction(positional, verbs));
  }
  return specs;
}

constexpr const char* kZshHead = R"sh(#compdef tuner
# zsh completion for tuner, written by `tuner completion zsh` from the
# command line's own definition. Install as _tuner in a directory of $fpath
# (share/zsh/vendor-completions), or `source <(tuner completion zsh)`.

# The experiments in the database named by --db on the line (else tuner.db).
_tuner_names() {
  local -a names
  # (f): one name a line; zsh expands no parameter value further, and
  # compadd takes each as a literal word.
  names=(${(f)"$($_tuner_command experiment-names --db "${_tuner_db:-tuner.db}" 2>/dev/null)"})
  compadd -a names
}

_tuner() {
  local _tuner_command=${words[1]} _tuner_db=tuner.db i
  for ((i = 2; i < CURRENT; i++)); do
    case ${words[i]} in
      --db) _tuner_db=${words[i+1]} ;;
      --db=*) _tuner_db=${words[i]#--db=} ;;
    esac
  done
  local curcontext=$curcontext state line
  local -a verbs
  verbs=(
)sh";

}  // namespace

std::string BashCompletion(const CLI::App& root) {
  std::vector<VerbModel> verbs = DescribeVerbs(root);
  VerbModel top = DescribeRoot(root);
  top.positionals = {{"verb", "", true, ArgumentKind::kVerb, {}}};
  std::string script =
      "_tuner_verbs='" + Join(VerbNames(verbs)) + "'\n" + kBashHead;
  script += BashVerbArm(top);
  for (const VerbModel& verb : verbs) script += BashVerbArm(verb);
  script += "    *) return ;;\n  esac\n  case $verb:$prev in\n";
  for (const VerbModel& verb : verbs) script += BashChoiceArms(verb);
  script += "  esac\n";
  return script + kBashTail;
}

std::string ZshCompletion(const CLI::App& root) {
  std::vector<VerbModel> verbs = DescribeVerbs(root);
  std::vector<std::string> names = VerbNames(verbs);
  std::string script = kZshHead;
  for (const VerbModel& verb : verbs) {
    script += "    " + ZshEntry(verb.name, verb.summary) + "\n";
  }
  // -A: the root's flags end at the verb (its --db is then the verb's).
  script += "  )\n  _arguments -C -A '-*'";
  script += ZshSpecs(DescribeRoot(root), names);
  script +=
      " \\\n      '1: :->verb' '*:: :->args' && return\n"
      "  case $state in\n"
      "    verb) _describe -t verbs 'tuner verb' verbs ;;\n"
      "    args)\n      case ${words[1]} in\n";
  for (const VerbModel& verb : verbs) {
    script += fmt::format("    {}) _arguments{} ;;\n", verb.name,
                          ZshSpecs(verb, names));
  }
  script +=
      "      esac ;;\n  esac\n}\n\n"
      "if [[ ${funcstack[1]} == _tuner ]]; then\n  _tuner \"$@\"\n"
      "else\n  compdef _tuner tuner\nfi\n";
  return script;
}

}  // namespace tuner::cli
