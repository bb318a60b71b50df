// Three tuners on one database and one DL1 (8 fake cards), each SIGKILLed
// at random instants while its trials run and started again: no card is
// ever held by two trials, every experiment completes, nothing is lost or
// stored twice, and the database stays sound.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <thread>

#include "storage/trial_store.h"
#include "tests/catch.h"
#include "tests/support/fake_machine.h"
#include "tests/support/wait_for.h"

namespace tuner::testing {
namespace {

namespace fs = std::filesystem;

const char* kNames[] = {"alpha", "beta", "gamma"};
constexpr int kTrials = 16;

void WriteConfig(const fs::path& dir, const std::string& name, int slow) {
  std::ofstream(dir / (name + ".yaml"))
      << "name: " << name << "\ncommand: " << DEVICE_TRAINER
      << " --lr {lr} --epochs 4 --sleep-ms " << 150 * slow
      << "\nmetric: score\nmode: max\ntime_attr: epoch\n"
         "search_space: {lr: {type: loguniform, low: 1.0e-4, high: 1.0}}\n"
         "num_trials: "
      << kTrials
      << "\nscheduler: {type: asha, max_t: 4, grace_period: 1, "
         "reduction_factor: 2}\n"
         "devices: {kind: habana}\n";  // leased in $TUNER_LOCK_DIR
}

pid_t StartTuner(const fs::path& dir, const std::string& name) {
  std::string command = "cd '" + dir.string() +
                        "' && exec '" TUNER_BINARY "' run " + name +
                        ".yaml >> " + name + ".log 2>&1";
  pid_t pid = fork();
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", command.c_str(), nullptr);
    _exit(127);
  }
  return pid;
}

int Count(const fs::path& log, const std::string& what) {
  std::ifstream in(log);
  int n = 0;
  for (std::string line; std::getline(in, line);)
    n += line.find(what) != std::string::npos;
  return n;
}

// Exit 0; or exit 2 from a tuner started again after a kill that landed
// once the sweep had been recorded finished: it says so and does nothing.
bool EndedWell(const fs::path& dir, const std::string& name, int status) {
  if (!WIFEXITED(status)) return false;
  if (WEXITSTATUS(status) == 0) return true;
  return WEXITSTATUS(status) == 2 &&
         Count(dir / (name + ".log"), "already finished") > 0;
}

std::vector<int> ModulesOf(const Lifetime& l) {
  return IdsOf(l.env.value("HABANA_VISIBLE_MODULES", "-1"));
}

TEST_CASE(
    "chaos: three tuners on one database and 8 cards, killed and restarted, "
    "share the cards and lose nothing",
    "[chaos][process]") {
  UseFakeMachine("dl1");
  fs::path dir =
      fs::temp_directory_path() / ("tuner-chaos3-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  int slow = Sanitized() ? 3 : 1;
  for (const char* name : kNames) WriteConfig(dir, name, slow);

  std::map<std::string, pid_t> tuners;
  for (const char* name : kNames) tuners[name] = StartTuner(dir, name);
  // The kills land while trials run: wait for every experiment's first.
  auto all_started = [&] {
    for (const char* name : kNames)
      if (ReadLifetimes(dir / "tuner.db.trials" / name).empty()) return false;
    return true;
  };
  REQUIRE(WaitFor("every experiment's first trial", std::chrono::seconds(60),
                  all_started));
  REQUIRE(all_started());

  std::mt19937 rng(20261123);
  std::uniform_int_distribution<int> delay_ms(100 * slow, 400 * slow);
  std::uniform_int_distribution<int> pick(0, 2);
  int kills = 0;
  for (int round = 0; round < 12; ++round) {
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms(rng)));
    std::string name = kNames[pick(rng)];
    int status = 0;
    if (waitpid(tuners[name], &status, WNOHANG) == tuners[name]) {
      INFO(name << " exited " << status);
      CHECK(EndedWell(dir, name, status));
      tuners[name] = -1;
      continue;
    }
    if (tuners[name] < 0) continue;
    kill(tuners[name], SIGKILL);
    waitpid(tuners[name], &status, 0);
    ++kills;
    tuners[name] = StartTuner(dir, name);  // resumes the experiment
  }
  CHECK(kills > 0);
  // Then every tuner runs to its end; one whose sweep already finished
  // says so and exits 2 when run again, so wait for the live ones only.
  for (auto& [name, pid] : tuners) {
    if (pid < 0) continue;
    int status = 0;
    waitpid(pid, &status, 0);
    INFO(name << ": " << std::ifstream(dir / (name + ".log")).rdbuf());
    CHECK(EndedWell(dir, name, status));
  }

  auto store = storage::TrialStore::Open((dir / "tuner.db").string());
  REQUIRE(store.ok());
  auto& db = *store.value();
  CHECK(db.IntegrityCheck().value() == "ok");
  std::vector<Lifetime> all;
  int adopted = 0;
  for (const char* name : kNames) {
    INFO(name);
    adopted += Count(dir / (std::string(name) + ".log"), ": adopted (");
    CHECK(Count(dir / (std::string(name) + ".log"), "database is locked") == 0);
    auto experiment = db.experiments().Find(name).value();
    REQUIRE(experiment);
    CHECK(experiment->status == core::ExperimentStatus::kFinished);
    auto trials = db.trials().List(experiment->id).value();
    REQUIRE(trials.size() == kTrials);
    for (const auto& trial : trials) {
      INFO("trial " << trial.id << ": " << trial.reason);
      CHECK((trial.status == core::TrialStatus::kCompleted ||
             trial.status == core::TrialStatus::kStopped));
      double last_time = 0;
      auto reports = db.reports().List(trial.id).value();
      for (const auto& report : reports) {
        if (!report.time) continue;
        CHECK(*report.time > last_time);  // no report stored twice
        last_time = *report.time;
      }
    }
    auto leases = db.leases().List(experiment->id).value();
    for (const auto& lease : leases) CHECK(lease.released_at.has_value());
    auto lifetimes = ReadLifetimes(dir / "tuner.db.trials" / name);
    std::map<std::string, int> starts;
    for (const auto& l : lifetimes) {
      CHECK(std::isfinite(l.end));
      ++starts[l.trial_dir];
    }
    CHECK(starts.size() == kTrials);
    all.insert(all.end(), lifetimes.begin(), lifetimes.end());
  }
  CHECK(adopted > 0);  // the kills hit running trials, which were taken up
  // No card was ever held by two trials, across the three tuners.
  CHECK(FirstOverlap(all, ModulesOf) == "");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tuner::testing
