// `tuner devices` on each recorded machine, and two `tuner run` processes
// sharing one machine's cards.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <thread>

#include "tests/catch.h"
#include "tests/support/fake_machine.h"
#include "tests/support/wait_for.h"

namespace tuner::testing {
namespace {

namespace fs = std::filesystem;

std::string ReadText(const fs::path& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
}

std::string Capture(const std::string& command) {
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe);
  char buffer[4096];
  while (size_t n = fread(buffer, 1, sizeof buffer, pipe))
    out.append(buffer, n);
  pclose(pipe);
  return out;
}

nlohmann::json Inventory(const std::string& machine,
                         const std::string& flags = "") {
  UseFakeMachine(machine);
  std::string out =
      Capture("'" TUNER_BINARY "' devices --format json " + flags + " 2>&1");
  auto j = nlohmann::json::parse(out, nullptr, false);
  INFO(out);
  REQUIRE_FALSE(j.is_discarded());
  return j;
}

TEST_CASE("tuner devices: a DL1 whose card indices are not its module ids",
          "[devices][cli][process]") {
  auto j = Inventory("dl1");
  CHECK(j["kind"] == "habana");
  REQUIRE(j["devices"].size() == 8);
  const std::map<int, int> index_of = {{5, 0}, {4, 1}, {7, 2}, {6, 3},
                                       {2, 4}, {3, 5}, {0, 6}, {1, 7}};
  for (int m = 0; m < 8; ++m) {
    const auto& d = j["devices"][m];
    CHECK(d["id"] == m);
    CHECK(d["index"] == index_of.at(m));
    CHECK(d["name"] == "HL-205");
    CHECK(d["memory_total_mib"] == 32768);
    CHECK(d["state"] == "free");
  }
  auto busy = Inventory("dl1-busy");
  CHECK(busy["devices"][2]["state"] == "busy");
  CHECK(busy["devices"][3]["state"] == "free");
}

TEST_CASE("tuner devices: trn1.32xlarge (new JSON) and trn1.2xlarge (old)",
          "[devices][cli][process]") {
  auto big = Inventory("trn1-32xl", "--kind neuron");
  CHECK(big["kind"] == "neuron");
  CHECK(big["source"] == "neuron-ls --output-format json");
  REQUIRE(big["devices"].size() == 32);
  CHECK(big["devices"][31]["id"] == 31);
  CHECK(big["devices"][31]["index"] == 15);  // its chip
  auto small = Inventory("trn1-2xl");
  CHECK(small["source"] == "neuron-ls --json-output");
  REQUIRE(small["devices"].size() == 2);
  CHECK(small["devices"][1]["memory_total_mib"] == 16384);
}

TEST_CASE("tuner devices: a p4d's A100s by UUID, a foreign process marks busy",
          "[devices][cli][process]") {
  auto j = Inventory("p4d");
  CHECK(j["kind"] == "cuda");
  REQUIRE(j["devices"].size() == 8);
  CHECK(j["devices"][3]["name"] == "NVIDIA A100-SXM4-40GB");
  CHECK(std::string(j["devices"][3]["uuid"]).starts_with("GPU-33"));
  auto busy = Inventory("p4d-busy");
  CHECK(busy["devices"][3]["state"] == "busy");
  CHECK(busy["devices"][2]["state"] == "free");
  auto none = Inventory("nothing");  // no accelerator: the CPUs
  CHECK(none["kind"] == "cpu");
}

// A `tuner run` in the background, in its own directory.
struct Tuner {
  fs::path dir;
  pid_t pid = -1;
};

// `wrapper` (e.g. fake-card-user) runs each trial's device_trainer.
// Every tuner of the test leases through the test's $TUNER_LOCK_DIR.
Tuner StartTuner(const fs::path& root, const std::string& name, int trials,
                 int sleep_ms, const std::string& trainer_flags = "",
                 const std::string& wrapper = "") {
  Tuner t;
  t.dir = root / name;
  fs::create_directories(t.dir);
  std::ofstream(t.dir / "sweep.yaml")
      << "name: " << name << "\ncommand: " << wrapper << DEVICE_TRAINER
      << " --lr {lr} --epochs 3 --sleep-ms " << sleep_ms << " " << trainer_flags
      << "\nmetric: score\nmode: max\ntime_attr: epoch\n"
         "search_space: {lr: {type: loguniform, low: 1.0e-4, high: 1.0}}\n"
         "num_trials: "
      << trials << "\ndevices: {kind: habana}\n";
  std::string command = "cd '" + t.dir.string() +
                        "' && exec '" TUNER_BINARY
                        "' run sweep.yaml > out.log 2>&1";
  t.pid = fork();
  if (t.pid == 0) {
    execl("/bin/sh", "sh", "-c", command.c_str(), nullptr);
    _exit(127);
  }
  return t;
}

// Its exit status once it has ended, else nullopt.
std::optional<int> Ended(const Tuner& t) {
  int status = 0;
  if (waitpid(t.pid, &status, WNOHANG) == t.pid) return status;
  return std::nullopt;
}

int Wait(const Tuner& t) {
  int status = 0;
  waitpid(t.pid, &status, 0);
  return status;
}

std::vector<int> ModulesOf(const Lifetime& l) {
  return IdsOf(l.env.value("HABANA_VISIBLE_MODULES", "-1"));
}

TEST_CASE("two tuner processes on one DL1 never share a card",
          "[devices][cli][process]") {
  UseFakeMachine("dl1");
  fs::path root =
      fs::temp_directory_path() / ("two-tuners-" + std::to_string(getpid()));
  fs::remove_all(root);
  // The first 8 trials of the two wait for each other: all 8 cards at once.
  std::string barrier = BarrierFlags(8);
  Tuner a = StartTuner(root, "a", 40, 20, barrier);
  Tuner b = StartTuner(root, "b", 40, 20, barrier);
  CHECK(WEXITSTATUS(Wait(a)) == 0);
  CHECK(WEXITSTATUS(Wait(b)) == 0);
  auto lifetimes = ReadLifetimes(root / "a" / "tuner.db.trials" / "a");
  auto more = ReadLifetimes(root / "b" / "tuner.db.trials" / "b");
  REQUIRE(lifetimes.size() == 40);
  REQUIRE(more.size() == 40);
  lifetimes.insert(lifetimes.end(), more.begin(), more.end());
  CHECK(FirstOverlap(lifetimes, ModulesOf) == "");
  CHECK(MaxConcurrent(lifetimes) == 8);
  fs::remove_all(root);
}

void Touch(const fs::path& path) { std::ofstream(path) << "open\n"; }

TEST_CASE(
    "a SIGKILLed tuner's cards go to the other one as each of its trials "
    "ends",
    "[devices][cli][process]") {
  UseFakeMachine("dl1");
  fs::path root =
      fs::temp_directory_path() / ("killed-tuner-" + std::to_string(getpid()));
  fs::remove_all(root);
  fs::path gate = root / "gate";
  fs::create_directories(gate);
  // a's 8 trials hold their cards until the test opens their gate.
  Tuner a = StartTuner(root, "a", 8, 10, "--gate " + gate.string());
  fs::path a_trials = root / "a" / "tuner.db.trials" / "a";
  REQUIRE(WaitFor("a's 8 trials to start", std::chrono::seconds(60),
                  [&] { return ReadLifetimes(a_trials).size() == 8; }));
  Tuner b = StartTuner(root, "b", 8, 10);
  kill(a.pid, SIGKILL);
  Wait(a);
  // One of a's orphans ends: b takes its card while the other 7 are held
  // (no waiting for all of them, nor for a's orphan timeout).
  Lifetime first = ReadLifetimes(a_trials).front();
  int freed_module = ModulesOf(first)[0];
  Touch(gate / first.env.value("TUNER_TRIAL_ID", "?"));
  fs::path b_trials = root / "b" / "tuner.db.trials" / "b";
  REQUIRE(WaitFor("b's first trial to start", std::chrono::seconds(60),
                  [&] { return !ReadLifetimes(b_trials).empty(); }));
  Lifetime taken = ReadLifetimes(b_trials).front();
  CHECK(ModulesOf(taken) == std::vector<int>{freed_module});
  int still_held = 0;
  for (const auto& l : ReadLifetimes(a_trials))
    still_held += !std::isfinite(l.end);
  CHECK(still_held == 7);
  Touch(gate / "all");
  CHECK(WEXITSTATUS(Wait(b)) == 0);
  auto orphans = ReadLifetimes(a_trials);
  auto later = ReadLifetimes(b_trials);
  REQUIRE(orphans.size() == 8);
  REQUIRE(later.size() == 8);
  for (const auto& l : orphans)
    CHECK(std::isfinite(l.end));  // they ran to their end without a tuner
  std::vector<Lifetime> all = orphans;
  all.insert(all.end(), later.begin(), later.end());
  CHECK(FirstOverlap(all, ModulesOf) == "");
  fs::remove_all(root);
}

size_t Registered(const fs::path& state) {
  size_t n = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(state, ec))
    n += entry.path().extension() == ".json";
  return n;
}

// The fake tools show the cards of running trials in use (30 GiB, as a real
// one's): a second tuner must see them as leased, not busy, and wait for
// them instead of leaving them out (or exiting 2 when all are in use).
TEST_CASE("a second tuner counts the cards running trials use as leased",
          "[devices][cli][process]") {
  UseFakeMachine("dl1");
  fs::path root =
      fs::temp_directory_path() / ("leased-cards-" + std::to_string(getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "state");
  setenv("TUNER_FAKE_STATE", (root / "state").c_str(), 1);
  std::string locks = std::getenv("TUNER_LOCK_DIR");
  std::string go = (root / "go").string();
  std::string user = FAKES_DIR "/bin/fake-card-user ";
  // a's 8 trials hold every card until `go` exists.
  Tuner a = StartTuner(root, "a", 8, 10, "", user + "--until " + go + " ");
  REQUIRE(WaitFor("8 cards in use by a's trials", std::chrono::seconds(60),
                  [&] { return Registered(root / "state") == 8; }));
  auto seen = Inventory("dl1", "--lock-dir " + locks);
  for (const auto& d : seen["devices"]) {
    INFO(d.dump());
    CHECK(d["state"] == "leased");
    CHECK(d["memory_used_mib"] == 30720);  // the fake shows the trial's use
  }
  Tuner b = StartTuner(root, "b", 8, 10, "", user);
  std::optional<int> b_status;
  auto b_log = [&] { return ReadText(root / "b" / "out.log"); };
  REQUIRE(
      WaitFor("b to take its 8 devices or end", std::chrono::seconds(60), [&] {
        return b_log().find("devices: 8 habana device(s)") !=
                   std::string::npos ||
               (b_status = Ended(b)).has_value();
      }));
  INFO(b_log());
  CHECK_FALSE(b_status.has_value());  // b did not give up on the cards
  std::ofstream(go).close();
  CHECK(WEXITSTATUS(Wait(a)) == 0);
  if (!b_status) b_status = Wait(b);
  CHECK(WEXITSTATUS(*b_status) == 0);
  CHECK(b_log().find("skipped") == std::string::npos);
  auto lifetimes = ReadLifetimes(root / "a" / "tuner.db.trials" / "a");
  auto more = ReadLifetimes(root / "b" / "tuner.db.trials" / "b");
  CHECK(lifetimes.size() == 8);
  CHECK(more.size() == 8);
  lifetimes.insert(lifetimes.end(), more.begin(), more.end());
  CHECK(FirstOverlap(lifetimes, ModulesOf) == "");
  // Every card is free again, and shows so.
  auto after = Inventory("dl1", "--lock-dir " + locks);
  for (const auto& d : after["devices"]) CHECK(d["state"] == "free");
  unsetenv("TUNER_FAKE_STATE");
  fs::remove_all(root);
}

}  // namespace
}  // namespace tuner::testing
