#include "tuner/cli/cli_model.h"

#include "tuner/cli/command_line.h"

namespace tuner::cli {

namespace {

// CLI11 writes an IsMember check into the type name: "TEXT:{table,json}".
std::vector<std::string> Choices(const std::string& type_name) {
  std::vector<std::string> choices;
  size_t open = type_name.find(":{");
  size_t close = type_name.find('}', open);
  if (open == std::string::npos || close == std::string::npos) return choices;
  std::string list = type_name.substr(open + 2, close - open - 2);
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = std::min(list.find(',', start), list.size());
    if (comma > start) choices.push_back(list.substr(start, comma - start));
    start = comma + 1;
  }
  return choices;
}

std::string BaseType(const std::string& type_name) {
  return type_name.substr(0, type_name.find(':'));
}

FlagModel DescribeFlag(const CLI::Option& option) {
  FlagModel flag;
  for (const auto& name : option.get_snames()) flag.names.push_back("-" + name);
  for (const auto& name : option.get_lnames()) {
    flag.names.push_back("--" + name);
  }
  flag.description = option.get_description();
  flag.takes_value = option.get_expected_max() > 0;  // flags expect 0
  if (flag.takes_value) {
    flag.type = BaseType(option.get_type_name());
    flag.choices = Choices(option.get_type_name());
  }
  return flag;
}

PositionalModel DescribePositional(const CLI::Option& option) {
  PositionalModel positional;
  positional.name = option.get_name();
  positional.description = option.get_description();
  positional.required = option.get_required();
  positional.choices = Choices(option.get_type_name());
  if (!positional.choices.empty()) {
    positional.kind = ArgumentKind::kChoice;
  } else if (positional.name == "name") {
    positional.kind = ArgumentKind::kExperiment;
  } else if (positional.name == "verb") {
    positional.kind = ArgumentKind::kVerb;
  }
  return positional;
}

VerbModel Describe(const CLI::App& app) {
  VerbModel verb;
  verb.name = app.get_parent() ? app.get_name() : "";
  verb.summary = app.get_description();
  for (const CLI::Option* option : app.get_options({})) {
    if (option->get_positional()) {
      verb.positionals.push_back(DescribePositional(*option));
    } else {
      verb.flags.push_back(DescribeFlag(*option));
    }
  }
  return verb;
}

}  // namespace

VerbModel DescribeRoot(const CLI::App& root) { return Describe(root); }

std::vector<VerbModel> DescribeVerbs(const CLI::App& root) {
  std::vector<VerbModel> verbs;
  for (const CLI::App* verb : VisibleVerbs(root)) {
    verbs.push_back(Describe(*verb));
  }
  return verbs;
}

}  // namespace tuner::cli
