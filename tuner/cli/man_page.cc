#include "tuner/cli/man_page.h"

#include <fmt/format.h>

#include "tuner/cli/cli_model.h"

namespace tuner::cli {

namespace {

// Text as roff reads it literally: backslashes and dashes escaped, and a
// line never starting with a control character.
std::string Roff(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";
    } else {
      out += c;
    }
  }
  if (!out.empty() && (out.front() == '.' || out.front() == '\'')) {
    out = "\\&" + out;
  }
  return out;
}

std::string Bold(const std::string& text) {
  return "\\fB" + Roff(text) + "\\fR";
}
std::string Italic(const std::string& text) {
  return "\\fI" + Roff(text) + "\\fR";
}

std::string Join(const std::vector<std::string>& words, const char* by) {
  std::string out;
  for (const auto& word : words) out += (out.empty() ? "" : by) + word;
  return out;
}

// ".TP" paragraph: the flag's names and value, then what it does.
std::string FlagItem(const FlagModel& flag) {
  std::vector<std::string> names;
  for (const auto& name : flag.names) names.push_back(Bold(name));
  std::string head = Join(names, ", ");
  if (!flag.choices.empty()) {
    head += " " + Italic(Join(flag.choices, "|"));
  } else if (flag.takes_value) {
    head += " " + Italic(flag.type);
  }
  return ".TP\n" + head + "\n" + Roff(flag.description) + "\n";
}

std::string VerbSection(const VerbModel& verb) {
  std::string usage = Bold("tuner " + verb.name);
  for (const PositionalModel& positional : verb.positionals) {
    std::string arg = Italic(positional.name);
    usage += " " + (positional.required ? arg : "[" + arg + "]");
  }
  std::string text = ".SS " + usage + "\n" + Roff(verb.summary) + ".\n";
  for (const PositionalModel& positional : verb.positionals) {
    text += ".TP\n" + Italic(positional.name) + "\n" +
            Roff(positional.description) + "\n";
  }
  for (const FlagModel& flag : verb.flags) {
    if (flag.names.size() == 2 && flag.names[1] == "--help") continue;
    text += FlagItem(flag);
  }
  return text;
}

constexpr const char* kTail = R"(.SH EXIT STATUS
.TP
.B 0
success (a sweep that finished, even with failed trials)
.TP
.B 1
a failure of the tuner itself, or every trial failed
.TP
.B 2
bad input: a config error, a bad flag, an unknown verb
.TP
.B 130, 143
interrupted by SIGINT or SIGTERM
.SH FILES
.TP
.I tuner.db
the default database (\fB\-\-db\fR)
.TP
.I tuner.db.trials/EXPERIMENT/ID/
each trial's params.json, stdout.log and stderr.log
.TP
.I tuner.db.token
the token of \fBtuner serve\fR
.SH SEE ALSO
\fBtuner help\fR \fIVERB\fR; the README and docs/ of the tuner sources.
)";

}  // namespace

std::string ManPage(const CLI::App& root, const std::string& version) {
  VerbModel top = DescribeRoot(root);
  std::string about = top.summary;
  if (about.starts_with("tuner: ")) about = about.substr(7);
  std::string page = fmt::format(
      ".TH TUNER 1 \"\" \"tuner {}\" \"User Commands\"\n"
      ".SH NAME\ntuner \\- {}\n"
      ".SH SYNOPSIS\n{} [{} {}] {} [{}]\n"
      ".SH DESCRIPTION\n{}.\n"
      "Each verb takes its own flags after it, listed below; \\fB\\-\\-db\\fR "
      "may come before the verb or after it.\n"
      ".SH OPTIONS\n",
      Roff(version), Roff(about), Bold("tuner"), Bold("--db"), Italic("FILE"),
      Italic("VERB"), Italic("ARGUMENTS"), Roff(about));
  for (const FlagModel& flag : top.flags) page += FlagItem(flag);
  page += ".SH VERBS\n";
  for (const VerbModel& verb : DescribeVerbs(root)) page += VerbSection(verb);
  return page + kTail;
}

}  // namespace tuner::cli
