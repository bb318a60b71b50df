// The `tuner` binary's conventions as a user meets them: --version, help,
// a mistyped verb, the completion scripts sourced in bash, the man page.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "storage/trial_store.h"
#include "tests/catch.h"
#include "tests/support/fresh_dir.h"
#include "tests/support/tuner_cli.h"

namespace tuner {
namespace {

namespace fs = std::filesystem;

using testing::FreshDir;
using testing::Output;
using testing::RunTuner;

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST_CASE("tuner --version, version, help and a mistyped verb",
          "[tuner][cli][process]") {
  fs::path dir = FreshDir("verbs");
  Output version = RunTuner(dir, "--version");
  CHECK(version.code == 0);
  CHECK(version.out.rfind("tuner 0.", 0) == 0);
  Output verb = RunTuner(dir, "version");
  CHECK(verb.code == 0);
  CHECK(verb.out.rfind(version.out, 0) == 0);  // the same line, then the shim
  CHECK(Has(verb.out, "tuner-shim: " + fs::path(TUNER_SHIM).string() + "\n"));

  Output help = RunTuner(dir, "help best");
  CHECK(help.code == 0);
  CHECK(help.out == RunTuner(dir, "best --help").out);
  CHECK(Has(help.out, "Usage: tuner best [OPTIONS] name"));
  Output all = RunTuner(dir, "help");
  CHECK(all.code == 0);
  CHECK(Has(all.out, "Usage: tuner [OPTIONS] SUBCOMMAND"));  // not a path

  Output typo = RunTuner(dir, "stauts");
  CHECK(typo.code == 2);
  CHECK(typo.err == "tuner: unknown verb `stauts`: did you mean `status`?\n");
  CHECK(RunTuner(dir, "--db x.db bets").err ==
        "tuner: unknown verb `bets`: did you mean `best`?\n");
  Output flag = RunTuner(dir, "best x --frmat csv");
  CHECK(flag.code == 2);
  CHECK(flag.err ==
        "tuner best: unknown flag `--frmat`: did you mean "
        "`--format`?\n");
  CHECK(RunTuner(dir, "trials x --frmat=csv").err ==
        "tuner trials: unknown flag `--frmat`: did you mean `--format`?\n");
  CHECK(RunTuner(dir, "best x -frmat csv").err ==
        "tuner best: unknown flag `-frmat`: did you mean `--format`?\n");
  Output none = RunTuner(dir, "--db x.db");
  CHECK(none.code == 2);
  CHECK(none.err == "tuner: a verb is needed (`tuner help` lists them)\n");
  CHECK(RunTuner(dir, "--bogus").err ==
        "tuner: unknown flag `--bogus` (`tuner help` lists them)\n");
  Output unknown = RunTuner(dir, "help frobnicate");
  CHECK(unknown.code == 2);
  CHECK(unknown.err ==
        "tuner: unknown verb `frobnicate` (`tuner help` lists them)\n");
  CHECK_FALSE(fs::exists(dir / "x.db"));
  fs::remove_all(dir);
}

// Runs `script` in bash in `dir`; returns its stdout.
std::string Bash(const fs::path& dir, const std::string& script) {
  std::ofstream(dir / "script.sh") << script;
  std::string command = "cd '" + dir.string() +
                        "' && bash --norc --noprofile script.sh > bash.out "
                        "2> bash.err";
  int status = std::system(command.c_str());
  INFO(testing::ReadFile(dir / "bash.err"));
  CHECK(status == 0);
  return testing::ReadFile(dir / "bash.out");
}

TEST_CASE("the bash completion completes verbs, flags and experiment names",
          "[tuner][cli][process]") {
  fs::path dir = FreshDir("completion");
  {
    auto store = storage::TrialStore::Open((dir / "other.db").string());
    REQUIRE(store.ok());
    for (const char* name : {"digits-lr", "digits-tpe", "bert"}) {
      storage::ExperimentRecord record;
      record.name = name;
      record.status = core::ExperimentStatus::kFinished;
      record.metric = "acc";
      record.time_attr = "epoch";
      record.config_json = "{}";
      REQUIRE(store.value()->experiments().Create(record).ok());
    }
    REQUIRE(store.value()->Commit().ok());
  }
  Output script = RunTuner(dir, "completion bash");
  REQUIRE(script.code == 0);
  std::ofstream(dir / "tuner.bash") << script.out;
  // COMP_WORDS as bash splits the line; prints what _tuner offers.
  std::string complete = R"(
source ./tuner.bash
offer() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=(); _tuner
          echo "${COMPREPLY[*]}"; }
offer ')" TUNER_BINARY R"(' sta
offer ')" TUNER_BINARY R"(' --db other.db best dig
offer ')" TUNER_BINARY R"(' status --db other.db b
offer ')" TUNER_BINARY R"(' trials digits-lr --fo
offer ')" TUNER_BINARY R"(' best x --format y
offer ')" TUNER_BINARY R"(' best dig
)";
  std::string offered = Bash(dir, complete);
  CHECK(offered ==
        "status\n"
        "digits-lr digits-tpe\n"
        "bert\n"
        "--format\n"
        "yaml\n"
        "\n");  // ./tuner.db does not exist: no names, no error
  CHECK_FALSE(fs::exists(dir / "tuner.db"));
  // The zsh script at least parses, where zsh is installed.
  Output zsh = RunTuner(dir, "completion zsh");
  REQUIRE(zsh.code == 0);
  std::ofstream(dir / "_tuner") << zsh.out;
  if (std::system("command -v zsh > /dev/null") == 0) {
    std::string parse = "zsh -n '" + (dir / "_tuner").string() + "'";
    CHECK(std::system(parse.c_str()) == 0);
  }
  fs::remove_all(dir);
}

// Experiment names are data from a database anyone may hand over: Tab
// after `tuner best ` must run none of them and offer only valid names,
// whichever way --db is written.
TEST_CASE("the bash completion runs no code stored in experiment names",
          "[tuner][cli][process]") {
  fs::path dir = FreshDir("hostile");
  fs::create_directories(dir / "e");
  {
    auto store = storage::TrialStore::Open((dir / "e" / "t.db").string());
    REQUIRE(store.ok());
    for (const char* name : {"$(touch ran-dollar)", "`touch ran-tick`",
                             "ok-name", "o; touch ran-semicolon", "o*"}) {
      storage::ExperimentRecord record;
      record.name = name;
      record.status = core::ExperimentStatus::kFinished;
      record.metric = "acc";
      record.time_attr = "epoch";
      record.config_json = "{}";
      REQUIRE(store.value()->experiments().Create(record).ok());
    }
    REQUIRE(store.value()->Commit().ok());
  }
  Output names = RunTuner(dir, "experiment-names --db e/t.db");
  CHECK(names.out == "ok-name\n");
  std::ofstream(dir / "tuner.bash") << RunTuner(dir, "completion bash").out;
  std::string complete = R"(
source ./tuner.bash
offer() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=(); _tuner
          echo "${COMPREPLY[*]}"; }
offer ')" TUNER_BINARY R"(' --db e/t.db best ''
offer ')" TUNER_BINARY R"(' --db = e/t.db best o
offer ')" TUNER_BINARY R"(' --db=e/t.db best ''
offer ')" TUNER_BINARY R"(' best --db=e/t.db '$('
)";
  std::string offered = Bash(dir, complete);
  CHECK(offered == "ok-name\nok-name\nok-name\n\n");
  for (const char* ran : {"ran-dollar", "ran-tick", "ran-semicolon"}) {
    INFO(ran);
    CHECK_FALSE(fs::exists(dir / ran));
  }
  fs::remove_all(dir);
}

TEST_CASE("the man page renders without warnings and lists every verb",
          "[tuner][cli][process]") {
  fs::path dir = FreshDir("man");
  Output man = RunTuner(dir, "man-page");
  REQUIRE(man.code == 0);
  std::ofstream(dir / "tuner.1") << man.out;
  std::string command = "cd '" + dir.string() +
                        "' && groff -man -Tutf8 -P-cbou -ww tuner.1 > page.txt "
                        "2> warnings.txt";
  REQUIRE(std::system(command.c_str()) == 0);
  CHECK(testing::ReadFile(dir / "warnings.txt").empty());
  std::string page = testing::ReadFile(dir / "page.txt");
  for (const char* verb : {"run", "plan", "status", "best", "serve",
                           "completion", "help", "version"}) {
    INFO(verb);
    CHECK(Has(page, std::string("tuner ") + verb));
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tuner
