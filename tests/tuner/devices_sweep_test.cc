// Whole sweeps on fake accelerator machines: every trial gets its own
// devices, with the env its stack reads, and never shares them.
#include <set>

#include "tests/catch.h"
#include "tests/support/fake_machine.h"
#include "tests/tuner/sweep_harness.h"

namespace tuner::testing {
namespace {

using core::TrialStatus;

// Trials of 3 epochs of `sleep_ms` each; with BarrierFlags(n) the first n
// wait for each other, so every group is busy at once on any machine.
std::string Config(const std::string& name, const std::string& devices,
                   int trials, const std::string& trainer_flags = "",
                   int sleep_ms = 20) {
  return "name: " + name + R"(
command: DEVTRAINER --lr {lr} --epochs 3 --sleep-ms )" +
         std::to_string(sleep_ms) + " " + trainer_flags + R"(
metric: score
mode: max
time_attr: epoch
search_space: {lr: {type: loguniform, low: 1.0e-4, high: 1.0}}
num_trials: )" +
         std::to_string(trials) + R"(
scheduler: {type: asha, max_t: 3, grace_period: 1, reduction_factor: 3}
devices: )" +
         devices + "\n";
}

std::vector<int> HabanaModules(const Lifetime& l) {
  return IdsOf(l.env.value("HABANA_VISIBLE_MODULES", "-1"));
}

// The stored leases never overlap on a device, and each was given back.
void CheckStoredLeases(SweepResult& result) {
  auto leases = result.store->leases().List(result.experiment.id);
  REQUIRE(leases.ok());
  std::map<int, std::vector<std::pair<double, double>>> by_device;
  for (const auto& lease : leases.value()) {
    REQUIRE(lease.released_at.has_value());
    for (int id : IdsOf(lease.devices))
      by_device[id].push_back({lease.acquired_at, *lease.released_at});
  }
  for (auto& [id, spans] : by_device) {
    std::sort(spans.begin(), spans.end());
    for (size_t i = 1; i < spans.size(); ++i) {
      INFO("device " << id);
      CHECK(spans[i].first >= spans[i - 1].second);
    }
  }
}

TEST_CASE("200 one-card trials on a DL1: one trial per module at any instant",
          "[devices][process]") {
  UseFakeMachine("dl1");
  auto result =
      RunSweep(Config("dl1-1card", "{kind: habana}", 200, BarrierFlags(8)));
  REQUIRE(result.outcome == SweepOutcome::kFinished);
  REQUIRE(result.trials.size() == 200);
  auto lifetimes = ReadLifetimes(result.dir / "trials");
  REQUIRE(lifetimes.size() == 200);
  for (const auto& l : lifetimes) {
    INFO(l.env.dump());
    REQUIRE(l.env.contains("HLS_MODULE_ID"));
    CHECK(l.env["HLS_MODULE_ID"] == l.env["HABANA_VISIBLE_MODULES"]);
    CHECK(l.env["HABANA_LOGS"] == l.trial_dir + "/habana_logs");
    CHECK(std::isfinite(l.end));
  }
  CHECK(FirstOverlap(lifetimes, HabanaModules) == "");
  CHECK(MaxConcurrent(lifetimes) == 8);
  std::set<std::string> modules;
  for (const auto& l : lifetimes) modules.insert(l.env["HLS_MODULE_ID"]);
  CHECK(modules.size() == 8);
  CheckStoredLeases(result);
}

TEST_CASE("2- and 4-card Gaudi trials get aligned module groups only",
          "[devices][process]") {
  UseFakeMachine("dl1");
  for (int k : {2, 4}) {
    auto result =
        RunSweep(Config("dl1-" + std::to_string(k) + "cards",
                        "{kind: habana, per_trial: " + std::to_string(k) + "}",
                        40, BarrierFlags(8 / k)));
    REQUIRE(result.outcome == SweepOutcome::kFinished);
    auto lifetimes = ReadLifetimes(result.dir / "trials");
    REQUIRE(lifetimes.size() == 40);
    for (const auto& l : lifetimes) {
      INFO(l.env.dump());
      CHECK_FALSE(l.env.contains("HLS_MODULE_ID"));
      std::vector<int> modules = HabanaModules(l);
      REQUIRE(modules.size() == static_cast<size_t>(k));
      CHECK(modules.front() % k == 0);
      for (int j = 1; j < k; ++j) CHECK(modules[j] == modules.front() + j);
    }
    CHECK(FirstOverlap(lifetimes, HabanaModules) == "");
    CHECK(MaxConcurrent(lifetimes) == 8 / k);
    CheckStoredLeases(result);
  }
}

TEST_CASE("32 NeuronCores, 2 per trial: disjoint ranges, distinct ports",
          "[devices][process]") {
  UseFakeMachine("trn1-32xl");
  auto result = RunSweep(Config("trn1-2cores", "{kind: neuron, per_trial: 2}",
                                64, BarrierFlags(16), 60));
  REQUIRE(result.outcome == SweepOutcome::kFinished);
  auto lifetimes = ReadLifetimes(result.dir / "trials");
  REQUIRE(lifetimes.size() == 64);
  auto cores = [](const Lifetime& l) {
    return IdsOf(l.env.value("NEURON_RT_VISIBLE_CORES", "-1"));
  };
  for (const auto& l : lifetimes) {
    std::string range = l.env["NEURON_RT_VISIBLE_CORES"];
    INFO(range);
    std::vector<int> ids = IdsOf(range);
    REQUIRE(ids.size() == 2);
    CHECK(ids[0] % 2 == 0);
    CHECK(range == std::to_string(ids[0]) + "-" + std::to_string(ids[1]));
    CHECK(
        std::string(l.env["NEURON_RT_ROOT_COMM_ID"]).starts_with("localhost:"));
    CHECK(l.env.value("PET_MASTER_PORT", "") ==
          l.env.value("MASTER_PORT", "-"));
  }
  CHECK(FirstOverlap(lifetimes, cores) == "");
  CHECK(MaxConcurrent(lifetimes) == 16);
  // Ports: no two trials alive at once share a comm port or a master port.
  for (const char* key : {"NEURON_RT_ROOT_COMM_ID", "MASTER_PORT"}) {
    std::map<std::string, int> codes;
    auto port_of = [&](const Lifetime& l) {
      std::string value = l.env[key];
      auto [it, added] = codes.emplace(value, static_cast<int>(codes.size()));
      return std::vector<int>{it->second};
    };
    INFO(key);
    CHECK(FirstOverlap(lifetimes, port_of) == "");
  }
}

TEST_CASE(
    "a trial whose child ignores SIGTERM keeps its card until the "
    "child is dead",
    "[devices][process]") {
  UseFakeMachine("dl1");
  std::string yaml = Config("lingering-child", "{kind: habana, ids: [3]}", 3,
                            "--child-ignores-sigterm 0") +
                     "trial: {stop_grace: 300ms}\n";
  auto result = RunSweep(yaml);
  REQUIRE(result.outcome == SweepOutcome::kFinished);
  auto lifetimes = ReadLifetimes(result.dir / "trials");
  REQUIRE(lifetimes.size() == 3);
  for (size_t i = 1; i < lifetimes.size(); ++i) {
    const Lifetime& before = lifetimes[i - 1];
    const Lifetime& after = lifetimes[i];
    CHECK(after.env["HLS_MODULE_ID"] == "3");
    REQUIRE(before.last_child_beat > before.end);  // it outlived the trial
    CHECK(after.start > before.last_child_beat);
    CHECK(after.start - before.end > 0.25);  // the stop grace, then SIGKILL
  }
}

TEST_CASE("launcher docker partitions by card index through the runtime",
          "[devices][process]") {
  UseFakeMachine("dl1");
  auto log = std::filesystem::temp_directory_path() /
             ("docker-" + std::to_string(getpid()) + ".log");
  setenv("FAKE_DOCKER_LOG", log.c_str(), 1);
  auto result = RunSweep(Config("docker", R"({kind: habana, per_trial: 2,
  launcher: docker, image: vault.habana.ai/gaudi-docker/1.21.0/pytorch:latest,
  docker_options: ["--cap-add=sys_nice"], recipe_cache: /tmp/recipes})",
                                8));
  REQUIRE(result.outcome == SweepOutcome::kFinished);
  auto lifetimes = ReadLifetimes(result.dir / "trials");
  REQUIRE(lifetimes.size() == 8);
  // module id -> card index on the DL1 fixture
  const std::map<int, int> index_of = {{5, 0}, {4, 1}, {7, 2}, {6, 3},
                                       {2, 4}, {3, 5}, {0, 6}, {1, 7}};
  for (const auto& l : lifetimes) {
    INFO(l.env.dump());
    CHECK(l.env["FAKE_DOCKER_IMAGE"] ==
          "vault.habana.ai/gaudi-docker/1.21.0/pytorch:latest");
    CHECK_FALSE(l.env.contains("HLS_MODULE_ID"));
    CHECK_FALSE(l.env.contains("HABANA_VISIBLE_MODULES"));
    CHECK(l.env["PT_HPU_RECIPE_CACHE_CONFIG"] == "/tmp/recipes,false,10240");
    std::vector<int> modules = IdsOf(l.env["TUNER_DEVICES"]);
    std::string expected = std::to_string(index_of.at(modules[0])) + "," +
                           std::to_string(index_of.at(modules[1]));
    CHECK(l.env["HABANA_VISIBLE_DEVICES"] == expected);
  }
  std::ifstream in(log);
  int runs = 0, removals = 0;
  for (std::string line; std::getline(in, line);) {
    auto argv = nlohmann::json::parse(line);
    if (argv[0] == "run") {
      ++runs;
      CHECK(std::find(argv.begin(), argv.end(), "--runtime=habana") !=
            argv.end());
      CHECK(std::find(argv.begin(), argv.end(), "--cap-add=sys_nice") !=
            argv.end());
    }
    if (argv[0] == "rm") ++removals;
  }
  CHECK(runs == 8);
  CHECK(removals == 8);  // every container is removed after its trial
  std::filesystem::remove(log);
}

TEST_CASE("CUDA trials see their GPUs by UUID and a busy GPU is left out",
          "[devices][process]") {
  UseFakeMachine("p4d-busy");
  auto result = RunSweep(Config("p4d", "{kind: cuda, per_trial: 2}", 12));
  REQUIRE(result.outcome == SweepOutcome::kFinished);
  auto lifetimes = ReadLifetimes(result.dir / "trials");
  REQUIRE(lifetimes.size() == 12);
  std::set<std::string> lists;
  for (const auto& l : lifetimes) {
    std::string visible = l.env["CUDA_VISIBLE_DEVICES"];
    INFO(visible);
    CHECK(visible.starts_with("GPU-"));
    CHECK(visible.find("GPU-33") == std::string::npos);  // GPU 3 is busy
    CHECK(std::count(visible.begin(), visible.end(), ',') == 1);
    lists.insert(visible);
  }
  // 7 usable GPUs make 3 pairs: {0,1}, {2,4}, {5,6}; GPU 7 stays idle.
  CHECK(lists.size() == 3);
  auto gpus = [](const Lifetime& l) { return IdsOf(l.env["TUNER_DEVICES"]); };
  CHECK(FirstOverlap(lifetimes, gpus) == "");
}

TEST_CASE("CPU trials are pinned to disjoint CPUs with matching threads",
          "[devices][process]") {
  auto result = RunSweep(Config("cpu-pinned", "{kind: cpu, slots: 2}", 10));
  REQUIRE(result.outcome == SweepOutcome::kFinished);
  auto lifetimes = ReadLifetimes(result.dir / "trials");
  REQUIRE(lifetimes.size() == 10);
  auto cpus = [](const Lifetime& l) { return IdsOf(l.cpus); };
  for (const auto& l : lifetimes) {
    INFO(l.env.dump() << " on " << l.cpus);
    CHECK(l.cpus == l.env["TUNER_CPUS"]);
    CHECK(IdsOf(l.cpus).size() == 1);
    CHECK(l.env["OMP_NUM_THREADS"] == "1");
  }
  CHECK(FirstOverlap(lifetimes, cpus) == "");
}

}  // namespace
}  // namespace tuner::testing
