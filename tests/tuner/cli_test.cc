// The `tuner` binary as a user runs it: exit codes, stderr, output formats.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "storage/trial_store.h"
#include "tests/catch.h"
#include "tests/support/csv_reader.h"
#include "tests/support/tuner_cli.h"

namespace tuner {
namespace {

namespace fs = std::filesystem;

using testing::Output;
using testing::ReadFile;

class CliFixture {
 public:
  CliFixture()
      : dir_(fs::temp_directory_path() /
             ("tuner-cli-" + std::to_string(getpid()))) {
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  ~CliFixture() { fs::remove_all(dir_); }

  // Runs `tuner ARGS` in the fixture's directory.
  Output Tuner(const std::string& args) {
    return testing::RunTuner(dir_, args);
  }
  void Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
  }
  fs::path Path(const std::string& name) const { return dir_ / name; }

 private:
  fs::path dir_;
};

const char* kSweep = R"(name: cli-sweep
command: )" TOY_TRAINER R"( --lr {lr} --epochs {max_t} --format hf
metric: eval_score
mode: max
time_attr: epoch
search_space:
  lr: {type: loguniform, low: 1.0e-4, high: 1.0}
  width: {type: choice, values: [8, 16]}
searcher: {type: random, seed: 3}
num_trials: 12
scheduler: {type: asha, max_t: 9, grace_period: 1, reduction_factor: 3}
devices: {kind: cpu, slots: 2}
)";

TEST_CASE("tuner run with a bad config exits 2 with one line",
          "[tuner][cli][process]") {
  CliFixture f;
  f.Write("bad.yaml", std::string(kSweep).replace(
                          std::string(kSweep).find("high: 1.0"), 9, "high: 0"));
  Output bad = f.Tuner("run bad.yaml");
  CHECK(bad.code == 2);
  CHECK(bad.err ==
        "tuner: bad.yaml:7: search_space.lr.high: loguniform needs low < high "
        "(got low 1e-04, high 0)\n");
  Output missing = f.Tuner("run nothere.yaml");
  CHECK(missing.code == 2);
  CHECK(missing.err == "tuner: nothere.yaml: No such file or directory\n");
  // Every verb's one-line error starts alike.
  for (const char* args :
       {"run .", "plan .", "devices --config .", "simulate . --table t"}) {
    Output folder = f.Tuner(args);
    INFO(args << ": " << folder.err);
    CHECK(folder.code == 2);
    CHECK(folder.err.rfind("tuner: ", 0) == 0);
    CHECK(folder.err.find("not a regular file") != std::string::npos);
  }
  CHECK(f.Tuner("frobnicate").code == 2);
}

// Restores an environment variable when it goes.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST_CASE("a relative $TUNER_LOCK_DIR is refused", "[tuner][cli][process]") {
  // Resolved in each working directory, it let two tuners lease one CPU.
  CliFixture f;
  f.Write("sweep.yaml", kSweep);
  ScopedEnv env("TUNER_LOCK_DIR", "locks");
  const std::string why =
      "$TUNER_LOCK_DIR: 'locks' is relative; give an absolute path (every "
      "tuner on the machine must name the same directory)\n";
  Output run = f.Tuner("run sweep.yaml");
  CHECK(run.code == 2);
  CHECK(run.err == "tuner: devices: " + why);
  Output devices = f.Tuner("devices");
  CHECK(devices.code == 2);
  CHECK(devices.err == "tuner: " + why);
  Output flag = f.Tuner("devices --lock-dir ./x");
  CHECK(flag.code == 2);
  CHECK(flag.err ==
        "tuner: --lock-dir: './x' is relative; give an absolute "
        "path\n");
}

TEST_CASE("control characters a trial prints never reach the terminal",
          "[tuner][cli][process]") {
  // Metric names a trial prints reach "its reports had: ..." escaped, never
  // raw (ESC, BEL: a cleared screen, a window title).
  CliFixture f;
  f.Write("trial.sh",
          "printf '{\"epoch\": 1, \"sc\\033[2J\\033]0;pwned\\007ore\": "
          "0.5}\\n'\n");
  f.Write("esc.yaml", R"(name: esc
command: /bin/sh trial.sh {lr}
metric: score
mode: max
time_attr: epoch
search_space: {lr: {type: uniform, low: 0, high: 1}}
num_trials: 1
devices: {kind: cpu, slots: 1}
)");
  Output run = f.Tuner("run esc.yaml");
  INFO(run.err);
  Output trials = f.Tuner("trials esc");
  CHECK(trials.code == 0);
  for (const auto& text : {run.out, run.err, trials.out}) {
    CHECK(text.find('\x1b') == std::string::npos);
    CHECK(text.find('\x07') == std::string::npos);
  }
  CHECK(trials.out.find("its reports had: epoch, sc\\x1b[2J\\x1b]0;pwned"
                        "\\x07ore") != std::string::npos);
}

TEST_CASE("tuner run --quiet prints the summary and the best trial only",
          "[tuner][cli][process]") {
  CliFixture f;
  f.Write("quiet.yaml", R"(name: quiet
command: )" TOY_TRAINER R"( --lr {lr} --epochs 2
metric: score
mode: max
time_attr: epoch
search_space: {lr: {type: uniform, low: 0, high: 1}}
num_trials: 2
devices: {kind: cpu, slots: 1}
)");
  // Without --quiet, "searcher seed N" would be logged on stderr.
  Output run = f.Tuner("run --quiet quiet.yaml");
  INFO(run.out << run.err);
  REQUIRE(run.code == 0);
  CHECK(run.err.empty());
  CHECK(run.out.rfind("sweep finished: 2 completed, 0 stopped early, "
                      "0 failed\n\n",
                      0) == 0);
  CHECK(run.out.find("started") == std::string::npos);
}

TEST_CASE("tuner run then best and trials and status",
          "[tuner][cli][process]") {
  CliFixture f;
  f.Write("sweep.yaml", kSweep);
  Output run = f.Tuner("run sweep.yaml");
  INFO(run.err);
  REQUIRE(run.code == 0);
  CHECK(run.out.find("sweep finished") != std::string::npos);
  // Piped: one line per event, none per report.
  std::istringstream lines(run.out);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("trial ", 0) != 0) continue;
    std::string event = line.substr(line.find(' ', 6) + 1);
    event = event.substr(0, event.find_first_of(" :"));
    INFO(line);
    CHECK((event == "started" || event == "completed" || event == "stopped"));
  }
  CHECK(f.Tuner("run sweep.yaml").code == 2);  // the name is taken

  Output trials = f.Tuner("trials cli-sweep --format json");
  REQUIRE(trials.code == 0);
  auto json = nlohmann::json::parse(trials.out);
  REQUIRE(json.size() == 12);
  int stopped = 0;
  for (const auto& t : json) {
    CHECK(t.contains("id"));
    CHECK(t["params"].contains("lr"));
    CHECK(t["params"]["width"].is_number_integer());
    std::string status = t["status"];
    CHECK((status == "completed" || status == "stopped"));
    if (status == "stopped") {
      ++stopped;
      double rung = t["last_time"];
      CHECK((rung == 1 || rung == 3));
    }
    CHECK(t["best_value"].get<double>() >= t["last_value"].get<double>());
  }
  CHECK(stopped > 0);

  Output best = f.Tuner("best cli-sweep --top 3 --format json");
  REQUIRE(best.code == 0);
  auto top = nlohmann::json::parse(best.out);
  REQUIRE(top.size() == 3);
  CHECK(top[0]["status"] == "completed");
  CHECK(top[0]["last_time"] == 9);
  Output args = f.Tuner("best cli-sweep --format args");
  REQUIRE(args.code == 0);
  CHECK(args.out.rfind("--lr ", 0) == 0);
  CHECK(args.out.find("--width ") != std::string::npos);
  Output yaml = f.Tuner("best cli-sweep --format yaml");
  CHECK(yaml.out.rfind("- id: ", 0) == 0);

  Output status = f.Tuner("status");
  REQUIRE(status.code == 0);
  CHECK(status.out.find("cli-sweep") != std::string::npos);
  CHECK(status.out.find("finished") != std::string::npos);
  Output unknown = f.Tuner("best nope");
  CHECK(unknown.code == 1);
  CHECK(unknown.err.find(
            "no experiment 'nope' in tuner.db (it has: cli-sweep)") !=
        std::string::npos);
}

}  // namespace
}  // namespace tuner

namespace tuner {
namespace {

TEST_CASE("tuner plan works on every shipped config",
          "[tuner][cli][plan][process]") {
  CliFixture cli;
  int planned = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(SOURCE_DIR "/configs")) {
    if (entry.path().extension() != ".yaml") continue;
    INFO(entry.path());
    Output text = cli.Tuner("plan '" + entry.path().string() + "'");
    CHECK(text.code == 0);
    CHECK(text.err.empty());
    CHECK(text.out.find("total: ") != std::string::npos);
    Output json = cli.Tuner(
        "plan --format json --unit-seconds 30 --devices 8 "
        "--price-per-hour 13.11 '" +
        entry.path().string() + "'");
    REQUIRE(json.code == 0);
    auto j = nlohmann::json::parse(json.out);
    CHECK(j["num_trials"].get<int64_t>() > 0);
    CHECK(j["total_units"].get<double>() > 0);
    CHECK(j["devices"]["cost"].get<double>() > 0);
    ++planned;
  }
  CHECK(planned >= 2);
  Output missing = cli.Tuner("plan nope.yaml");
  CHECK(missing.code == 2);
  CHECK(missing.err.find("nope.yaml") != std::string::npos);
}

TEST_CASE("tuner simulate says when the table ran out before num_trials",
          "[tuner][cli][process]") {
  CliFixture cli;
  cli.Write("s.yaml",
            "name: s\ncommand: \"true\"\nmetric: loss\nmode: min\n"
            "time_attr: epoch\nsearch_space: {x: {type: uniform, low: 0, "
            "high: 9}}\nnum_trials: 3\nscheduler: {type: fifo}\n");
  cli.Write("t.jsonl",
            "{\"config\": {\"x\": 1}, \"curve\": [{\"epoch\": 1, "
            "\"loss\": 2, \"seconds\": 5}]}\n"
            "{\"config\": {\"x\": 2}, \"curve\": [{\"epoch\": 1, "
            "\"loss\": 1, \"seconds\": 5}]}\n");
  Output sim = cli.Tuner("simulate s.yaml --table t.jsonl --db sim.db");
  INFO(sim.err);
  CHECK(sim.code == 0);
  CHECK(sim.err ==
        "tuner: note: 's' ended after 2 of its num_trials 3: each of the "
        "table's rows runs at most once, and none was left\n");
}

TEST_CASE("tuner plan names PASHA and where its top rung starts",
          "[tuner][cli][plan][process]") {
  CliFixture cli;
  cli.Write("p.yaml",
            "name: p\ncommand: \"true\"\nmetric: loss\nmode: min\n"
            "time_attr: epoch\nsearch_space: {}\nnum_trials: 9\n"
            "scheduler: {type: asha, mode: promotion, pasha: true, max_t: 27, "
            "grace_period: 1}\n");
  Output text = cli.Tuner("plan p.yaml");
  INFO(text.err);
  REQUIRE(text.code == 0);
  CHECK(text.out.find("asha (promotion, PASHA) scheduler") !=
        std::string::npos);
  CHECK(text.out.find("pasha: promotions stop at the top rung, epoch 3 at "
                      "first") != std::string::npos);
  Output json = cli.Tuner("plan p.yaml --format json");
  REQUIRE(json.code == 0);
  auto planned = nlohmann::json::parse(json.out);
  CHECK(planned["pasha_first_top_rung"] == 3);
  Output plain = cli.Tuner("plan p.yaml --set scheduler.pasha=false");
  CHECK(plain.out.find("pasha") == std::string::npos);
}

TEST_CASE("tuner plan and simulate take --set and --name as tuner run does",
          "[tuner][cli][plan][process]") {
  CliFixture cli;
  cli.Write("s.yaml",
            "name: s\ncommand: \"true\"\nmetric: loss\nmode: min\n"
            "time_attr: epoch\nsearch_space: {}\nsearcher: {type: random, "
            "seed: 1}\nnum_trials: 3\nscheduler: {type: fifo}\n");
  cli.Write("t.jsonl",
            "{\"config\": {}, \"curve\": [{\"epoch\": 1, \"loss\": 2, "
            "\"seconds\": 5}]}\n"
            "{\"config\": {}, \"curve\": [{\"epoch\": 1, \"loss\": 1, "
            "\"seconds\": 5}]}\n");
  // Without max_t a trial runs until it exits: no units are counted.
  Output unbounded = cli.Tuner("plan s.yaml");
  CHECK(unbounded.out.find("bracket 0: 3 trials, each until it exits\n") !=
        std::string::npos);
  Output bounded = cli.Tuner("plan s.yaml --set scheduler.max_t=4");
  CHECK(bounded.out.find("bracket 0: 3 trials, 12 epoch\n") !=
        std::string::npos);
  Output plan = cli.Tuner(
      "plan s.yaml --format json --set num_trials=2 --set "
      "scheduler.max_t=4 --name p2");
  INFO(plan.err);
  REQUIRE(plan.code == 0);
  auto planned = nlohmann::json::parse(plan.out);
  CHECK(planned["experiment"] == "p2");
  CHECK(planned["num_trials"] == 2);
  CHECK(planned["total_units"] == 8);

  Output sim = cli.Tuner(
      "simulate s.yaml --table t.jsonl --db sim.db --format json --set "
      "num_trials=2 --name s2");
  INFO(sim.err);
  REQUIRE(sim.code == 0);
  auto simulated = nlohmann::json::parse(sim.out);
  CHECK(simulated["experiment"] == "s2");
  CHECK(simulated["trials"] == 2);
  CHECK(simulated["best"] == 1);

  for (const char* verb : {"plan s.yaml", "simulate s.yaml --table t.jsonl"}) {
    Output bad = cli.Tuner(std::string(verb) + " --set bogus=1");
    CHECK(bad.code == 2);
    CHECK(bad.err.find(": --set bogus=1: bogus: unknown key\n") !=
          std::string::npos);
    CHECK(std::count(bad.err.begin(), bad.err.end(), '\n') == 1);
  }
  for (const char* verb :
       {"run s.yaml", "plan s.yaml", "simulate s.yaml --table t.jsonl"}) {
    Output bad = cli.Tuner(std::string(verb) + " --name -x");
    INFO(verb << ": " << bad.err);
    CHECK(bad.code == 2);
    CHECK(bad.err.find(": --name -x: name: ") != std::string::npos);
    CHECK(bad.err.find("--set") == std::string::npos);
  }
}

TEST_CASE("numeric flags take a decimal number in their range, else exit 2",
          "[tuner][cli][plan][process]") {
  CliFixture cli;
  cli.Write("s.yaml",
            "name: s\ncommand: \"true\"\nmetric: loss\nmode: min\n"
            "time_attr: epoch\nsearch_space: {}\nnum_trials: 3\n"
            "scheduler: {type: fifo, max_t: 4}\n");
  const std::string digits309(309, '9');
  const std::string seconds =
      "tuner plan: --unit-seconds: expected a number from 1e-06 to 1e+09, "
      "got ";
  // Accepted, nan would print null and exit 0, 1e308 and 1.1e308 overflow
  // to null, and 0x10 be read as 16.
  std::vector<std::pair<std::string, std::string>> refused = {
      {"plan s.yaml --unit-seconds nan", seconds + "nan"},
      {"plan s.yaml --unit-seconds inf", seconds + "inf"},
      {"plan s.yaml --unit-seconds 1e308", seconds + "1e308"},
      {"plan s.yaml --unit-seconds " + digits309,
       seconds + std::string(24, '9') + "..."},
      {"plan s.yaml --unit-seconds 0x10", seconds + "0x10"},
      {"plan s.yaml --unit-seconds 010", seconds + "010"},
      {"plan s.yaml --unit-seconds +5", seconds + "+5"},
      {"plan s.yaml --price-per-hour -1",
       "tuner plan: --price-per-hour: expected a number from 0 to 1e+09, got "
       "-1"},
      {"plan s.yaml --devices 0x10",
       "tuner plan: --devices: expected an integer from 1 to 1000000, got "
       "0x10"},
      {"simulate s.yaml --table t.jsonl --workers 0x10",
       "tuner simulate: --workers: expected an integer from 1 to 4096, got "
       "0x10"},
      {"simulate s.yaml --table t.jsonl --seed 1e3",
       "tuner simulate: --seed: expected an integer from 0 to "
       "9223372036854775807, got 1e3"},
      {"extend s --trials 010",
       "tuner extend: --trials: expected an integer from 1 to 10000000, got "
       "010"},
  };
  for (const auto& [args, message] : refused) {
    Output bad = cli.Tuner(args);
    INFO(args);
    CHECK(bad.code == 2);
    CHECK(bad.out.empty());
    CHECK(bad.err == message + " (`tuner help " +
                         args.substr(0, args.find(' ')) +
                         "` lists its flags)\n");
  }
  // At the top of every range, what the plan computes stays a number.
  Output top = cli.Tuner(
      "plan s.yaml --format json --set num_trials=10000000 --set "
      "scheduler.max_t=1e30 --unit-seconds 1e9 --price-per-hour 1e9 "
      "--devices 1000000");
  INFO(top.err);
  REQUIRE(top.code == 0);
  auto j = nlohmann::json::parse(top.out);
  CHECK(j["total_units"].is_number());
  CHECK(j["devices"]["device_hours"].is_number());
  CHECK(j["devices"]["cost"].is_number());
  Output past = cli.Tuner("plan s.yaml --set scheduler.max_t=1e31");
  CHECK(past.code == 2);
  CHECK(past.err ==
        "tuner: --set scheduler.max_t=1e31: scheduler.max_t: must be <= "
        "1e+30\n");
}

TEST_CASE("a non-finite objective is reported, never a trial's value",
          "[tuner][cli][process]") {
  // inf is never shown as a trial's last value nor as the best (`trials`,
  // `status`, JSON, `best`), and a trial whose last report was NaN keeps
  // its last finite value and its place in `best`.
  CliFixture f;
  f.Write("trial.sh",
          "case $1 in\n"
          "1) echo '{\"accuracy\": 0.5}'; echo '{\"accuracy\": Infinity}';;\n"
          "2) echo '{\"accuracy\": 0.25}'; echo \"{'accuracy': nan}\";;\n"
          "3) echo '{\"accuracy\": -inf}';;\n"
          "esac\n");
  f.Write("inf.yaml", R"(name: inf
command: /bin/sh trial.sh {k}
metric: accuracy
mode: max
search_space: {k: {type: grid, values: [1, 2, 3]}}
searcher: {type: grid}
scheduler: {type: fifo}
devices: {kind: cpu, slots: 1}
)");
  Output run = f.Tuner("run -q inf.yaml");
  INFO(run.out << run.err);
  REQUIRE(run.code == 0);
  auto trials = nlohmann::json::parse(f.Tuner("trials inf --format json").out);
  REQUIRE(trials.size() == 3);
  CHECK(trials[0]["last_value"] == 0.5);
  CHECK(trials[0]["best_value"] == 0.5);
  CHECK(trials[0]["last_time"] == 1);
  CHECK(trials[1]["last_value"] == 0.25);
  CHECK(trials[2]["last_value"].is_null());
  CHECK(trials[2]["best_value"].is_null());
  auto best =
      nlohmann::json::parse(f.Tuner("best inf --top 5 --format json").out);
  REQUIRE(best.size() == 2);  // trial 3 has no value
  CHECK(best[0]["id"] == 1);
  CHECK(best[0]["last_value"] == 0.5);
  CHECK(best[1]["id"] == 2);
  auto by_best = nlohmann::json::parse(
      f.Tuner("best inf --top 5 --by best --format json").out);
  REQUIRE(by_best.size() == 2);
  CHECK(by_best[0]["best_value"] == 0.5);
  auto status = nlohmann::json::parse(f.Tuner("status --format json").out);
  CHECK(status[0]["best"]["trial"] == 1);
  CHECK(status[0]["best"]["value"] == 0.5);
  CHECK(f.Tuner("status").out.find("accuracy=0.5 (trial 1, report=1)") !=
        std::string::npos);
  auto csv = testing::ParseCsv(f.Tuner("trials inf --format csv").out);
  REQUIRE(csv.size() == 4);
  auto column = std::find(csv[0].begin(), csv[0].end(), "last_value");
  REQUIRE(column != csv[0].end());
  CHECK(csv[1][column - csv[0].begin()] == "0.5");
  CHECK(csv[3][column - csv[0].begin()] == "");
  // The reports keep what was printed, as JSON strings.
  std::vector<nlohmann::json> printed;
  std::istringstream lines(f.Tuner("reports inf --format jsonl").out);
  for (std::string line; std::getline(lines, line);) {
    printed.push_back(nlohmann::json::parse(line)["metrics"]["accuracy"]);
  }
  CHECK(printed ==
        std::vector<nlohmann::json>{0.5, "inf", 0.25, "nan", "-inf"});
}

TEST_CASE(
    "a trial stopped at a rung on a non-finite value keeps the time of its "
    "last finite one",
    "[tuner][cli][process]") {
  CliFixture f;
  f.Write("trial.sh",
          "for e in 1 2 3 4; do\n"
          "  v=0.9; [ $1 = 2 ] && { [ $e = 1 ] && v=0.95 || v=Infinity; }\n"
          "  echo \"{\\\"epoch\\\": $e, \\\"accuracy\\\": $v}\"\n"
          "done\n");
  f.Write("asha.yaml", R"(name: asha
command: /bin/sh trial.sh {k}
metric: accuracy
mode: max
time_attr: epoch
search_space: {k: {type: grid, values: [1, 2]}}
searcher: {type: grid}
scheduler: {type: asha, max_t: 4, grace_period: 1, reduction_factor: 2}
devices: {kind: cpu, slots: 1}
)");
  Output run = f.Tuner("run -q asha.yaml");
  INFO(run.out << run.err);
  REQUIRE(run.code == 0);
  auto trials = nlohmann::json::parse(f.Tuner("trials asha --format json").out);
  REQUIRE(trials.size() == 2);
  CHECK(trials[1]["status"] == "stopped");
  CHECK(trials[1]["last_value"] == 0.95);
  CHECK(trials[1]["last_time"] == 1);
}

}  // namespace
}  // namespace tuner

namespace tuner {
namespace {

// A database with experiment "q": two trials, one with a reason full of
// CSV's special characters, three reports.
void MakeQueryDb(const std::string& path) {
  auto store = storage::TrialStore::Open(path).value();
  storage::ExperimentRecord e;
  e.name = "q";
  e.status = core::ExperimentStatus::kFinished;
  e.metric = "acc";
  e.time_attr = "epoch";
  e.config_json = "{}";
  auto id = store->experiments().Create(e).value();
  auto t1 = store->trials().Add(id, 0, {{"lr", 0.5}}).value();
  auto t2 = store->trials().Add(id, 1, {{"lr", 0.25}}).value();
  for (auto [t, seq, acc] : {std::tuple{t1, 1, 0.5}, std::tuple{t1, 2, 0.75},
                             std::tuple{t2, 1, 0.125}}) {
    REQUIRE(store->reports()
                .Append({t,
                         seq,
                         double(seq),
                         acc,
                         {{"epoch", double(seq)}, {"acc", acc}}},
                        core::Mode::kMax)
                .ok());
  }
  REQUIRE(store->trials().MarkRunning(t2).ok());
  REQUIRE(store->trials()
              .Finish(t2, {core::TrialStatus::kFailed, 1, "oops, \"bad\"\nline",
                           std::nullopt})
              .ok());
  REQUIRE(store->Commit().ok());
}

TEST_CASE("query verbs: missing database or experiment, range errors, csv",
          "[tuner][cli][process]") {
  CliFixture f;
  for (std::string verb : {"status", "best q", "trials q", "reports q"}) {
    Output missing = f.Tuner(verb);
    INFO(verb);
    CHECK(missing.code == 1);
    CHECK(missing.err ==
          "tuner: no database at ./tuner.db (run `tuner run CONFIG` first, "
          "or pass --db FILE)\n");
  }
  MakeQueryDb(f.Path("tuner.db").string());
  Output nosuch = f.Tuner("status nosuch");
  CHECK(nosuch.code == 1);
  CHECK(nosuch.out.empty());
  CHECK(nosuch.err ==
        "tuner: no experiment 'nosuch' in tuner.db (it has: q)\n");
  // A name no experiment can have is echoed in part, on one line.
  for (std::string verb : {"status", "best", "resume", "stop", "delete"}) {
    Output huge = f.Tuner(verb + " " + std::string(5000, 'n'));
    INFO(verb << ": " << huge.err.substr(0, 300));
    CHECK(huge.code == 1);
    CHECK(huge.err.find(std::string(128, 'n') + "...' (5000 bytes) in ") !=
          std::string::npos);
    CHECK(huge.err.size() < 400);
  }
  for (std::string bad :
       {"best q --top 0", "best q --top -3", "best q --top 100001",
        "best q --by sideways", "status --format xml"}) {
    Output refused = f.Tuner(bad);
    INFO(bad << ": " << refused.err);
    CHECK(refused.code == 2);
    CHECK(refused.out.empty());
    CHECK(refused.err.starts_with("tuner "));  // names the verb
    CHECK(std::count(refused.err.begin(), refused.err.end(), '\n') == 1);
  }

  auto trials = testing::ParseCsv(f.Tuner("trials q --format csv").out);
  REQUIRE(trials.size() == 3);
  CHECK(trials[2][2] == "0.25");
  auto reason = std::find(trials[0].begin(), trials[0].end(), "reason");
  REQUIRE(reason != trials[0].end());
  CHECK(trials[2][reason - trials[0].begin()] == "oops, \"bad\"\nline");
  auto reports = testing::ParseCsv(f.Tuner("reports q --format csv").out);
  REQUIRE(reports.size() == 4);
  CHECK(reports[0] == std::vector<std::string>{"trial", "seq", "attempt",
                                               "epoch", "acc", "created_at"});
  CHECK(reports[2][4] == "0.75");
  auto status = nlohmann::json::parse(f.Tuner("status --format json").out);
  CHECK(status[0]["counts"]["failed"] == 1);
}

}  // namespace
}  // namespace tuner

namespace tuner {
namespace {

// The name of an experiment a crafted database holds: a window title, a
// colour and a C1 CSI.
const std::string kEvilName = "x\x1b]0;HACKED\x07y\xc2\x9b";

// A database with experiment kEvilName whose metric and time attribute
// hold escapes too, one trial with a value.
void MakeEvilDb(const std::string& path) {
  auto store = storage::TrialStore::Open(path).value();
  storage::ExperimentRecord e;
  e.name = kEvilName;
  e.status = core::ExperimentStatus::kFinished;
  e.metric = "acc\x1b[31m";
  e.time_attr = "ep\x1b[2J";
  e.config_json = "{}";
  auto id = store->experiments().Create(e).value();
  auto t =
      store->trials().Add(id, 0, {{"opt", std::string("s\x1b[5m")}}).value();
  REQUIRE(store->reports()
              .Append({t, 1, 1.0, 0.5, {{"ep\x1b[2J", 1.0}}}, core::Mode::kMax)
              .ok());
  REQUIRE(store->Commit().ok());
}

TEST_CASE("names from a crafted database print as text, never as escapes",
          "[tuner][cli][process]") {
  CliFixture f;
  MakeEvilDb(f.Path("tuner.db").string());
  setenv("EVIL", kEvilName.c_str(), 1);
  // Each verb and its exit code; the errors name the experiment.
  std::vector<std::pair<std::string, int>> verbs = {
      {"status", 0},
      {"status --format csv", 0},
      {"trials \"$EVIL\"", 0},
      {"trials \"$EVIL\" --format yaml", 0},
      {"best \"$EVIL\"", 0},
      {"best \"$EVIL\" --format args", 2},  // no stored config: says so
      {"reports \"$EVIL\"", 0},
      {"best nosuch", 1},
      {"stop \"$EVIL\"", 2}};
  for (const auto& [verb, code] : verbs) {
    Output shown = f.Tuner(verb);
    INFO(verb << ": " << shown.out << shown.err);
    CHECK(shown.code == code);
    for (const auto& text : {shown.out, shown.err}) {
      CHECK(text.find('\x1b') == std::string::npos);
      CHECK(text.find('\x07') == std::string::npos);
      CHECK(text.find("\xc2\x9b") == std::string::npos);
    }
  }
  unsetenv("EVIL");
  CHECK(f.Tuner("status").out.find("x\\x1b]0;HACKED\\x07y\\u009b") !=
        std::string::npos);
}

// Runs `tuner WORDS` (split at spaces) in `dir` with stdout a pipe whose
// reader has closed it (`tuner ... | head` once head has its lines).
Output RunIntoClosedPipe(const fs::path& dir, const std::string& words) {
  std::vector<std::string> args = {TUNER_BINARY};
  std::istringstream split(words);
  for (std::string word; split >> word;) args.push_back(word);
  std::vector<char*> argv;
  for (auto& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  close(fds[0]);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO,
                                   (dir / "err.txt").c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addchdir_np(&actions, dir.c_str());
  pid_t pid = -1;
  int spawned =
      posix_spawn(&pid, TUNER_BINARY, &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  REQUIRE(spawned == 0);
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  Output result;
  result.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.err = ReadFile(dir / "err.txt");
  return result;
}

TEST_CASE("a closed pipe on stdout ends every verb quietly with 141",
          "[tuner][cli][process]") {
  CliFixture f;
  MakeQueryDb(f.Path("tuner.db").string());
  for (std::string verb :
       {"reports q", "reports q --format csv", "trials q", "best q", "status",
        "help", "help status", "--help", "completion bash"}) {
    Output cut = RunIntoClosedPipe(f.Path(""), verb);
    INFO(verb << ": " << cut.err);
    CHECK(cut.code == 141);
    CHECK(cut.err.empty());
  }
}

}  // namespace
}  // namespace tuner
