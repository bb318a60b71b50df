// A sweep on Slurm without Slurm: the cluster config, the nodes' devices as
// one pool, the storage of leases' nodes and the allocation, and how the
// sweep takes a failed node or a cancelled step.
#include <filesystem>

#include "storage/trial_store.h"
#include "tests/catch.h"
#include "tests/support/config_text.h"
#include "tests/support/fresh_dir.h"
#include "tests/tuner/sweep_harness.h"
#include "tuner/cluster/slurm_setup.h"
#include "tuner/config/device_setup.h"
#include "util/lock_file.h"

namespace tuner {
namespace {

using core::TrialStatus;
using runner::DeviceKind;
using runner::DevicePool;
using testing::RunScripted;
using testing::TrialScript;

const char* kBase = R"(name: x
command: train --lr {lr}
metric: score
mode: max
search_space: {lr: {type: uniform, low: 0, high: 1}}
num_trials: 2
)";

runner::Inventory Gaudi(int n) {
  runner::Inventory inventory;
  inventory.kind = DeviceKind::kHabana;
  for (int i = 0; i < n; ++i) {
    runner::Device d;
    d.id = i;
    d.index = i;
    inventory.devices.push_back(d);
  }
  return inventory;
}

DevicePool NodePool(const std::string& node, int cards, int per_trial,
                    const std::string& lock_dir) {
  runner::PoolOptions options;
  options.per_trial = per_trial;
  options.lock_dir = lock_dir;
  options.node = node;
  auto pool = DevicePool::Create(Gaudi(cards), options);
  INFO(pool.status().message());
  REQUIRE(pool.ok());
  return std::move(pool).value();
}

TEST_CASE("the cluster section is read and checked", "[slurm][config]") {
  auto config = testing::Load(std::string(kBase) +
                              "cluster: {kind: slurm, nodes: 4, partition: "
                              "dl1, account: ml, time: '4:00:00', job: 1234, "
                              "salloc_args: [--constraint=dl1], srun_args: "
                              "[--mpi=none], poll: 500ms, exclusive: false}\n");
  INFO(config.status().message());
  REQUIRE(config.ok());
  const ClusterSpec& c = config.value().cluster;
  CHECK(c.kind == "slurm");
  CHECK(c.nodes == 4);
  CHECK(c.partition == "dl1");
  CHECK(c.account == "ml");
  CHECK(c.time == "4:00:00");
  CHECK(c.job == "1234");
  CHECK(c.salloc_args == std::vector<std::string>{"--constraint=dl1"});
  CHECK(c.srun_args == std::vector<std::string>{"--mpi=none"});
  CHECK(c.poll == std::chrono::milliseconds(500));
  CHECK_FALSE(c.exclusive);
  CHECK(testing::Load(kBase).value().cluster.kind == "local");
  using testing::ExpectError;
  ExpectError(std::string(kBase) + "cluster: {kind: k8s}\n",
              "x.yaml:7: cluster.kind: expected local or slurm");
  ExpectError(std::string(kBase) + "cluster: {kind: slurm, job: '1;reboot'}\n",
              "x.yaml:7: cluster.job: expected a Slurm job id such as 1234");
  ExpectError(std::string(kBase) + "cluster: {kind: slurm, nodes: 0}\n",
              "x.yaml:7: cluster.nodes: must be >= 1");
  ExpectError(std::string(kBase) + "cluster: {kind: slurm, poll: 1ms}\n",
              "x.yaml:7: cluster.poll: must be between 0.1 s and 10 min");
  ExpectError(std::string(kBase) + "cluster: {kind: slurm, nodez: 2}\n",
              "x.yaml:7: cluster.nodez: unknown key (did you mean 'nodes'?)");
}

TEST_CASE(
    "each node's cards are its own: leases name their node, locks are "
    "per node, a failed node gets no new trial",
    "[slurm][devices]") {
  std::string locks = (testing::FreshDir("cluster") / "locks").string();
  std::vector<DevicePool> pools;
  pools.push_back(NodePool("n1", 4, 2, locks));
  pools.push_back(NodePool("n2", 4, 2, locks));
  auto joined = DevicePool::Join(std::move(pools));
  REQUIRE(joined.ok());
  DevicePool& pool = joined.value();
  CHECK(pool.groups() == 4);
  CHECK(pool.nodes() == std::vector<std::string>{"n1", "n2"});
  CHECK(pool.Describe() ==
        "8 habana device(s) in 4 group(s) of 2: n1: [0-1] [2-3] n2: [0-1] "
        "[2-3]");
  std::vector<runner::DeviceLease> leases;
  while (auto lease = pool.TryAcquire()) leases.push_back(std::move(*lease));
  REQUIRE(leases.size() == 4);  // card 0 of n1 and card 0 of n2 are two
  CHECK(leases[0].node == "n1");
  CHECK(leases[3].node == "n2");
  CHECK(leases[0].ids() == leases[2].ids());
  CHECK(util::ProbeLock(
            locks + "/nodes/n2/" +
            runner::LockName(DeviceKind::kHabana, leases[2].devices[0]) +
            ".lock")
            .held);
  pool.SetNodeUsable("n1", false);
  pool.Release(std::move(leases[0]));
  pool.Release(std::move(leases[3]));
  auto next = pool.TryAcquire();
  REQUIRE(next);
  CHECK(next->node == "n2");  // n1's free group is skipped
  CHECK_FALSE(pool.TryAcquire());
  pool.SetNodeUsable("n1", true);
  auto again = pool.TryAcquire();
  REQUIRE(again);
  CHECK(again->node == "n1");
  // A resumed tuner adopts the group on the node its lease names.
  pool.Release(std::move(*again));
  CHECK_FALSE(pool.Adopt({0, 1}, "n3"));
  auto adopted = pool.Adopt({0, 1}, "n1");
  REQUIRE(adopted);
  CHECK(adopted->node == "n1");
}

TEST_CASE(
    "nodes with other devices cannot be joined, bad node names are "
    "refused",
    "[slurm][devices]") {
  std::string locks = (testing::FreshDir("cluster") / "locks").string();
  std::vector<DevicePool> pools;
  pools.push_back(NodePool("n1", 4, 2, locks));
  pools.push_back(NodePool("n2", 4, 1, locks));
  auto joined = DevicePool::Join(std::move(pools));
  REQUIRE_FALSE(joined.ok());
  CHECK(joined.status().message().find("node n2") != std::string::npos);
  runner::PoolOptions options;
  options.node = "../etc";
  CHECK_FALSE(DevicePool::Create(Gaudi(2), options).ok());
}

TEST_CASE("a node's inventory is read from `tuner devices --format json`",
          "[slurm][devices]") {
  auto inventory = InventoryFromJson(R"({"kind": "habana", "source": "hl-smi",
    "devices": [{"id": 0, "index": 5, "name": "HL-205", "state": "free"},
                {"id": 1, "index": 4, "state": "busy",
                 "detail": "30720 MiB used"}]})");
  REQUIRE(inventory.ok());
  CHECK(inventory.value().kind == DeviceKind::kHabana);
  REQUIRE(inventory.value().devices.size() == 2);
  CHECK(inventory.value().devices[0].index == 5);
  CHECK(inventory.value().devices[0].busy.empty());
  CHECK(inventory.value().devices[1].busy == "30720 MiB used");
  CHECK_FALSE(InventoryFromJson("srun: error: Unable to create step").ok());
  CHECK_FALSE(InventoryFromJson(R"({"kind": "tpu", "devices": []})").ok());
  CHECK_FALSE(
      InventoryFromJson(R"({"kind": "cuda", "devices": [{"id": "x"}]})").ok());
}

TEST_CASE("a lease's node and the experiment's allocation are stored",
          "[slurm][storage]") {
  auto store = storage::TrialStore::Open(":memory:").value();
  storage::ExperimentRecord record;
  record.name = "e";
  record.status = core::ExperimentStatus::kRunning;
  record.metric = "score";
  auto experiment = store->experiments().Create(record).value();
  auto trial = store->trials().Add(experiment, 0, {{"lr", 0.1}}).value();
  storage::LeaseRecord lease;
  lease.trial = trial;
  lease.attempt = 1;
  lease.kind = "habana";
  lease.devices = "2,3";
  lease.node = "n7";
  REQUIRE(store->leases().Open(lease).ok());
  auto held = store->leases().Held(trial).value();
  REQUIRE(held);
  CHECK(held->node == "n7");
  CHECK(store->leases().List(experiment).value().at(0).node == "n7");
  CHECK(store->experiments().ClusterJobOf(experiment).value().job.empty());
  REQUIRE(store->experiments().SetClusterJob(experiment, {"4242", true}).ok());
  REQUIRE(store->Commit().ok());
  auto job = store->experiments().ClusterJobOf(experiment).value();
  CHECK(job.job == "4242");
  CHECK(job.booked);
}

// One scripted trial (ScriptedRunner: the command is never run), then
// the `extra` lines.
std::string Scripted(const std::string& name, const std::string& extra) {
  return "name: " + name +
         "\ncommand: /bin/true --lr {lr}\nmetric: score\nmode: max\n"
         "time_attr: epoch\nsearch_space: {lr: {type: uniform, low: 0.1, "
         "high: 0.9}}\nnum_trials: 1\n" +
         extra;
}

TEST_CASE("a trial whose node failed is retried on another, not counted",
          "[slurm][failure]") {
  auto result = RunScripted(
      Scripted("node-failed",
               "devices: {kind: cpu, slots: 2}\ntrial: {max_failures: 0}\n"),
      [](const runner::TrialLaunch&, int attempt) {
        TrialScript script;
        script.reports = {{{"epoch", 1}, {"score", 0.5}}};
        script.node_failed = attempt == 1;
        return script;
      });
  REQUIRE(result.trials.size() == 1);
  CHECK(result.trials[0].status == TrialStatus::kCompleted);
  CHECK(result.trials[0].attempts == 2);
}

TEST_CASE("a step cancelled through Slurm fails its trial, without a retry",
          "[slurm][failure]") {
  int starts = 0;
  auto result = RunScripted(
      Scripted("cancelled",
               "devices: {kind: cpu, slots: 1}\ntrial: {max_failures: 3}\n"),
      [&starts](const runner::TrialLaunch&, int) {
        ++starts;
        TrialScript script;
        script.reports = {{{"epoch", 1}, {"score", 0.5}}};
        script.cancelled = true;
        return script;
      });
  REQUIRE(result.trials.size() == 1);
  CHECK(result.trials[0].status == TrialStatus::kFailed);
  CHECK(starts == 1);
  CHECK(result.trials[0].reason ==
        "cancelled through Slurm: *** STEP 7.2 ON n1 CANCELLED ***");
}

}  // namespace
}  // namespace tuner
