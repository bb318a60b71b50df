// The tuner SIGKILLed at random instants, 20 times, and resumed each time:
// nothing is lost, nothing is counted twice, no trial restarts, no process
// is left behind.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <thread>

#include "schedulers/factory.h"
#include "storage/trial_store.h"
#include "tests/catch.h"
#include "tests/support/fake_machine.h"
#include "tests/support/wait_for.h"
#include "tuner/config/config_loader.h"
#include "tuner/config/launch_spec.h"

namespace tuner::testing {
namespace {

namespace fs = std::filesystem;

pid_t StartTuner(const fs::path& dir, const std::string& verb) {
  std::string command = "cd '" + dir.string() +
                        "' && exec '" TUNER_BINARY "' " + verb +
                        " >> tuner.log 2>&1";
  pid_t pid = fork();
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", command.c_str(), nullptr);
    _exit(127);
  }
  return pid;
}

// Processes whose command line mentions `dir` (trials, shims).
int ProcessesUnder(const fs::path& dir) {
  int count = 0;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    std::string name = entry.path().filename().string();
    if (!std::isdigit(static_cast<unsigned char>(name[0]))) continue;
    std::ifstream in(entry.path() / "cmdline");
    std::stringstream text;  // not istreambuf_iterator: a process that
    text << in.rdbuf();      // exits meanwhile makes reading it throw
    std::string cmdline = text.str();
    std::ifstream stat(entry.path() / "stat");
    std::string pid, comm, state;
    stat >> pid >> comm >> state;
    if (state != "Z" && cmdline.find(dir.string()) != std::string::npos)
      ++count;
  }
  return count;
}

const char* kConfig = R"(name: chaos
command: DEVTRAINER --lr {lr} --epochs 4 --sleep-ms 200
metric: score
mode: max
time_attr: epoch
search_space: {lr: {type: loguniform, low: 1.0e-4, high: 1.0}}
searcher: {seed: 5}
num_trials: 48
scheduler: {type: asha, max_t: 4, grace_period: 1, reduction_factor: 2}
devices: {kind: habana, ids: [0, 1, 2, 3]}
)";

void Replace(std::string& text, const std::string& from,
             const std::string& to) {
  size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), to);
}

// Lines of the tuners' log that say a trial was adopted.
int AdoptedTrials(const fs::path& log) {
  std::ifstream in(log);
  int adopted = 0;
  for (std::string line; std::getline(in, line);)
    adopted += line.find(": adopted (") != std::string::npos;
  return adopted;
}

// The lines of the tuners' log about one trial, for a failure's message.
std::string LogAbout(const fs::path& log, core::TrialId trial) {
  std::ifstream in(log);
  std::string about, tag = "trial " + std::to_string(trial);
  for (std::string line; std::getline(in, line);) {
    size_t at = line.find(tag);
    if (at == std::string::npos) continue;
    char next = at + tag.size() < line.size() ? line[at + tag.size()] : ' ';
    if (!std::isdigit(static_cast<unsigned char>(next))) about += line + "\n";
  }
  return about;
}

// Whether a tuner stored the experiment as finished: a SIGKILL can land
// after that and before it exits (the next `tuner run` would refuse it).
bool ExperimentFinished(const fs::path& db) {
  auto store = storage::TrialStore::OpenReadOnly(db.string());
  if (!store.ok()) return false;
  auto experiment = store.value()->experiments().Find("chaos");
  return experiment.ok() && experiment.value() &&
         experiment.value()->status == core::ExperimentStatus::kFinished;
}

// What is stored about one trial, on a few lines, for a failure's message:
// its attempts, each report (attempt:time=value), its rung decisions, and
// what each attempt's shim wrote at its end.
std::string StoredStory(storage::TrialStore& db,
                        const storage::TrialRecord& trial,
                        const fs::path& trial_dir) {
  std::ostringstream out;
  out << "attempts " << trial.attempts << "; reports";
  auto reports = db.reports().List(trial.id).value();
  for (const auto& r : reports) {
    out << " " << r.attempt << ":" << (r.time ? *r.time : NAN) << "="
        << (r.value ? *r.value : NAN);
  }
  out << "; decisions";
  auto decisions = db.reports().ListDecisions(trial.experiment_id).value();
  for (const auto& d : decisions) {
    if (d.trial != trial.id) continue;
    out << " " << d.decision.milestone << ":"
        << core::ToString(d.decision.verdict);
  }
  out << "\n";
  for (int attempt = 1; attempt <= trial.attempts + 1; ++attempt) {
    std::ifstream status(AttemptStatusPath(trial_dir.string(), attempt));
    std::string line;
    if (std::getline(status, line))
      out << "status " << attempt << ": " << line << "\n";
  }
  return out.str();
}

// Waits (60 s at most) until a trial process runs under `dir`, or `tuner`
// has exited; returns false in that case (its status in `status`).
bool AwaitTrials(const fs::path& dir, pid_t tuner, int& status) {
  bool exited = false;
  WaitFor(
      "a trial process under " + dir.string(), std::chrono::seconds(60),
      [&] {
        exited = waitpid(tuner, &status, WNOHANG) == tuner;
        return exited || ProcessesUnder(dir / "tuner.db.trials") > 0;
      },
      std::chrono::milliseconds(5));
  return !exited;
}

// The stored decisions are what a fresh scheduler decides when given the
// stored reports, and asked for promotions, in the order they were stored.
void CheckDecisions(
    storage::TrialStore& db, const storage::ExperimentRecord& experiment,
    const std::vector<storage::TrialRecord>& trials,
    std::map<core::TrialId, std::vector<storage::ReportRecord>>& reports,
    const ExperimentConfig& config) {
  auto scheduler = schedulers::MakeTrialScheduler(config.scheduler);
  std::vector<const storage::TrialRecord*> by_index;
  for (const auto& t : trials) by_index.push_back(&t);
  std::sort(by_index.begin(), by_index.end(),
            [](auto* a, auto* b) { return a->index < b->index; });
  for (const auto* t : by_index) scheduler->OnAdd(t->id, t->index);
  auto decisions = db.reports().ListDecisions(experiment.id).value();
  CHECK(decisions.size() >= trials.size());
  for (const auto& stored : decisions) {
    INFO("trial " << stored.trial << " rung " << stored.decision.milestone
                  << " " << core::ToString(stored.decision.verdict));
    core::RungDecision d;
    if (stored.decision.verdict == core::RungVerdict::kPromote) {
      auto promoted = scheduler->NextPromotion();
      REQUIRE(promoted);
      CHECK(promoted->trial == stored.trial);
      d = promoted->record;
    } else {
      double value = NAN;
      for (const auto& r : reports[stored.trial])
        if (r.value && r.time && *r.time == stored.decision.milestone)
          value = *r.value;
      auto replayed =
          scheduler->OnReport(stored.trial, stored.decision.milestone, value);
      REQUIRE(replayed.rungs.size() == 1);
      d = replayed.rungs[0];
    }
    CHECK(d.value == stored.decision.value);
    CHECK(d.rank == stored.decision.rank);
    CHECK(d.n == stored.decision.n);
    CHECK(d.verdict == stored.decision.verdict);
  }
}

// Runs kConfig, changed by `edits` (from, to), under 20 SIGKILLs of the
// tuner that land while its trials run, each time started again with
// `tuner run`, then checks that nothing was lost or counted twice.
void RunChaos(const std::string& name,
              const std::vector<std::pair<std::string, std::string>>& edits) {
  UseFakeMachine("dl1");
  fs::path dir = fs::temp_directory_path() /
                 ("tuner-chaos-" + name + "-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  int slow = Sanitized() ? 4 : 1;  // ASan: everything starts slower
  std::string yaml = kConfig;
  Replace(yaml, "DEVTRAINER", DEVICE_TRAINER);
  Replace(yaml, "--sleep-ms 200", "--sleep-ms " + std::to_string(200 * slow));
  for (const auto& [from, to] : edits) Replace(yaml, from, to);
  std::ofstream(dir / "sweep.yaml") << yaml;
  auto config = LoadConfigText(yaml, "sweep.yaml", dir, dir);
  REQUIRE(config.ok());

  std::mt19937 rng(20261121);
  std::uniform_int_distribution<int> delay_ms(30 * slow, 250 * slow);
  int kills = 0, runs = 0;
  bool finished = false;
  // `tuner run` on an unfinished experiment resumes it. Each kill comes a
  // random delay after a trial runs (the first launch included), so that
  // it lands while trials run and the next tuner has some to adopt.
  while (kills < 20 && !finished && runs < 200) {
    ++runs;
    pid_t tuner = StartTuner(dir, "run sweep.yaml");
    int status = 0;
    bool alive = AwaitTrials(dir, tuner, status);
    if (alive) {
      std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms(rng)));
      alive = waitpid(tuner, &status, WNOHANG) != tuner;
    }
    if (!alive) {
      finished = WIFEXITED(status) && WEXITSTATUS(status) == 0;
      continue;
    }
    kill(tuner, SIGKILL);
    waitpid(tuner, &status, 0);
    kills += WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
    finished = ExperimentFinished(dir / "tuner.db");
  }
  CHECK(kills == 20);
  if (!finished) {
    pid_t last = StartTuner(dir, "run sweep.yaml");
    int status = 0;
    waitpid(last, &status, 0);
    INFO(std::ifstream(dir / "tuner.log").rdbuf());
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }
  int adopted = AdoptedTrials(dir / "tuner.log");
  UNSCOPED_INFO(name << ": " << adopted << " trials adopted after " << kills
                     << " kills");
  CHECK(adopted > 0);

  auto store = storage::TrialStore::Open((dir / "tuner.db").string());
  REQUIRE(store.ok());
  auto& db = *store.value();
  CHECK(db.IntegrityCheck().value() == "ok");
  auto experiment = db.experiments().Find("chaos").value();
  REQUIRE(experiment);
  CHECK(experiment->status == core::ExperimentStatus::kFinished);
  auto trials = db.trials().List(experiment->id).value();
  REQUIRE(trials.size() == 48);
  std::map<core::TrialId, std::vector<storage::ReportRecord>> reports;
  for (const auto& trial : trials) {
    INFO("trial " << trial.id << ": " << trial.reason << "\n"
                  << StoredStory(db, trial,
                                 dir / "tuner.db.trials" / "chaos" /
                                     std::to_string(trial.id))
                  << LogAbout(dir / "tuner.log", trial.id));
    CHECK((trial.status == core::TrialStatus::kCompleted ||
           trial.status == core::TrialStatus::kStopped));
    reports[trial.id] = db.reports().List(trial.id).value();
    double last_time = 0;
    for (const auto& report : reports[trial.id]) {
      if (!report.value) continue;
      CHECK(*report.time > last_time);  // no report stored twice
      last_time = *report.time;
    }
  }
  for (const auto& l : ReadLifetimes(dir / "tuner.db.trials" / "chaos")) {
    INFO(l.trial_dir);
    CHECK(std::isfinite(l.end));
  }
  // Each trial ran once per launch the scheduler asked for: adopted trials
  // went on, none restarted; a promoted one started again once.
  auto decisions = db.reports().ListDecisions(experiment->id).value();
  size_t promotions =
      std::count_if(decisions.begin(), decisions.end(), [](const auto& d) {
        return d.decision.verdict == core::RungVerdict::kPromote;
      });
  std::map<std::string, int> starts;
  for (const auto& l : ReadLifetimes(dir / "tuner.db.trials" / "chaos"))
    ++starts[l.trial_dir];
  size_t total = 0;
  for (const auto& [trial_dir, n] : starts) {
    INFO(trial_dir);
    CHECK(n >= 1);
    if (promotions == 0) CHECK(n == 1);
    total += n;
  }
  CHECK(starts.size() == 48);
  CHECK(total == 48 + promotions);

  CheckDecisions(db, *experiment, trials, reports, config.value());
  auto leases = db.leases().List(experiment->id).value();
  for (const auto& lease : leases) CHECK(lease.released_at.has_value());
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  CHECK(ProcessesUnder(dir) == 0);
  fs::remove_all(dir);
}

TEST_CASE("chaos: 20 SIGKILLs of the tuner, each resumed, lose nothing",
          "[chaos][process]") {
  RunChaos("epoch", {});
}

TEST_CASE("chaos: the same under the default time_attr (report)",
          "[chaos][process]") {
  RunChaos("report", {{"time_attr: epoch\n", ""}});
}

TEST_CASE("chaos: the same with promotion ASHA", "[chaos][process]") {
  RunChaos("promotion",
           {{"reduction_factor: 2}", "reduction_factor: 2, mode: promotion}"}});
}

int RunCli(const fs::path& dir, const std::string& args) {
  std::string command = "cd '" + dir.string() + "' && '" TUNER_BINARY "' " +
                        args + " >> cli.log 2>&1";
  int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST_CASE("tuner stop: graceful, or detached and resumed later",
          "[chaos][process]") {
  UseFakeMachine("dl1");
  fs::path dir =
      fs::temp_directory_path() / ("tuner-stop-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string yaml = kConfig;
  Replace(yaml, "DEVTRAINER", DEVICE_TRAINER);
  Replace(yaml, "num_trials: 48", "num_trials: 8");
  // Each trial holds at its start until the gate opens: the stops land
  // while 4 trials run, however slow the machine.
  fs::path gate = dir / "gate";
  fs::create_directories(gate);
  Replace(yaml, "--sleep-ms 200", "--sleep-ms 20 --gate " + gate.string());
  std::ofstream(dir / "sweep.yaml") << yaml;
  std::string name = "chaos";  // each experiment has its own trial dirs
  auto wait_for_trials = [&dir, &name] {
    WaitFor(
        "4 trials of " + name + " to start", std::chrono::seconds(60),
        [&] {
          return ReadLifetimes(dir / "tuner.db.trials" / name).size() >= 4;
        },
        std::chrono::milliseconds(20));
    REQUIRE(ReadLifetimes(dir / "tuner.db.trials" / name).size() == 4);
  };
  // --detach: the tuner exits 0, its trials go on, resume finishes them.
  pid_t tuner = StartTuner(dir, "run sweep.yaml");
  wait_for_trials();
  CHECK(RunCli(dir, "stop chaos --detach") == 0);
  int status = 0;
  waitpid(tuner, &status, 0);
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(ProcessesUnder(dir) > 0);  // its trials still run
  std::ofstream(gate / "all") << "open\n";
  CHECK(RunCli(dir, "resume chaos") == 0);
  fs::remove(gate / "all");
  auto lifetimes = ReadLifetimes(dir / "tuner.db.trials" / "chaos");
  CHECK(lifetimes.size() == 8);  // each trial ran once
  // A graceful stop of a second experiment: exit 143, trials stopped.
  name = "again";
  yaml.replace(yaml.find("name: chaos"), 11, "name: again");
  std::ofstream(dir / "sweep.yaml") << yaml;
  tuner = StartTuner(dir, "run sweep.yaml");
  wait_for_trials();
  CHECK(RunCli(dir, "stop again") == 0);
  waitpid(tuner, &status, 0);
  CHECK(WEXITSTATUS(status) == 143);
  CHECK(ProcessesUnder(dir) == 0);
  auto store = storage::TrialStore::Open((dir / "tuner.db").string());
  REQUIRE(store.ok());
  auto experiment = store.value()->experiments().Find("again").value();
  REQUIRE(experiment);
  CHECK(experiment->status == core::ExperimentStatus::kInterrupted);
  auto rows = store.value()->trials().List(experiment->id).value();
  for (const auto& t : rows) CHECK(t.status != core::TrialStatus::kRunning);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tuner::testing
