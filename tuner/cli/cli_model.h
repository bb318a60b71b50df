// The command line as plain data, read from the registered CLI11 App: what
// the completion scripts and the man page are written from.
#ifndef TUNER_TUNER_CLI_CLI_MODEL_H_
#define TUNER_TUNER_CLI_CLI_MODEL_H_

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace tuner::cli {

struct FlagModel {
  std::vector<std::string> names;  // "-h", "--help"
  std::string description;
  bool takes_value = false;
  std::string type;                  // "TEXT", "INT" ("" for a flag)
  std::vector<std::string> choices;  // from CLI::IsMember; else empty
};

// What a positional argument holds, for completing it.
enum class ArgumentKind {
  kExperiment,  // named "name": an experiment in the database
  kVerb,        // named "verb": one of the verbs
  kChoice,      // one of `choices`
  kFile,        // anything else: a path
};

struct PositionalModel {
  std::string name;
  std::string description;
  bool required = false;
  ArgumentKind kind = ArgumentKind::kFile;
  std::vector<std::string> choices;
};

struct VerbModel {
  std::string name;  // "" for the root (the flags before a verb)
  std::string summary;
  std::vector<FlagModel> flags;
  std::vector<PositionalModel> positionals;
};

// The root's own flags and description (name "").
VerbModel DescribeRoot(const CLI::App& root);
// Every verb `tuner --help` lists, in its order (hidden ones left out).
std::vector<VerbModel> DescribeVerbs(const CLI::App& root);

}  // namespace tuner::cli

#endif  // TUNER_TUNER_CLI_CLI_MODEL_H_
