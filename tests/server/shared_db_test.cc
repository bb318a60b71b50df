// Parallel experiments on one database: four `tuner run` processes, the
// service running one more, and readers (`tuner best`, `tuner status`, the
// API) on the same SQLite file at the same time.
#include <cstdlib>
#include <fstream>
#include <future>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/server/service_fixture.h"
#include "tests/support/tuner_cli.h"

namespace tuner::testing {
namespace {

namespace fs = std::filesystem;

// A short toy sweep on 2 cpu slots leased through the test's
// $TUNER_LOCK_DIR, which every experiment of the test (and the service)
// shares: they wait for each other's slots.
std::string SharedSlotsYaml(const std::string& name) {
  return WithTrainers("name: " + name + R"(
command: TOY --lr {lr} --epochs 3 --sleep-ms 20
metric: score
mode: max
time_attr: epoch
search_space: {lr: {type: loguniform, low: 1.0e-3, high: 1.0}}
num_trials: 4
scheduler: {type: asha, max_t: 3, grace_period: 1, reduction_factor: 2}
devices: {kind: cpu, slots: 2}
)");
}

// Starts `tuner run` on s1..s4 in `dir` (its tuner.db), reads with
// `tuner best` and `tuner status` until they have all exited, and leaves
// their exit codes in code<i>.txt and every output in *.out / *.err.
constexpr const char* kScript = R"(
cd "$1"
pids=""
for i in 1 2 3 4; do
  "$2" run s$i.yaml > run$i.out 2> run$i.err &
  pids="$pids $!"
done
alive() {
  for p in $pids; do kill -0 "$p" 2> /dev/null && return 0; done
  return 1
}
while alive; do
  "$2" best s1 >> readers.out 2>&1
  "$2" status >> readers.out 2>&1
done
i=1
for p in $pids; do
  wait "$p"
  echo $? > code$i.txt
  i=$((i + 1))
done
)";

TEST_CASE("four tuners, the service and readers share one database",
          "[server][storage][process]") {
  Service service;
  const fs::path& dir = service.dir();
  for (int i = 1; i <= 4; ++i) {
    std::ofstream(dir / ("s" + std::to_string(i) + ".yaml"))
        << SharedSlotsYaml("s" + std::to_string(i));
  }
  std::ofstream(dir / "run.sh") << kScript;
  auto client = service.Client();
  auto submitted =
      client->Call("POST", "/api/experiments", SharedSlotsYaml("svc"));
  REQUIRE(submitted.ok());
  INFO(submitted.value().body);
  REQUIRE(submitted.value().status == 201);

  std::string command = "bash '" + (dir / "run.sh").string() + "' '" +
                        dir.string() + "' '" TUNER_BINARY "'";
  auto tuners = std::async(std::launch::async,
                           [&] { return std::system(command.c_str()); });
  // The API reads the same file meanwhile.
  int api_errors = 0;
  while (tuners.wait_for(std::chrono::milliseconds(50)) !=
         std::future_status::ready) {
    auto list = client->Call("GET", "/api/experiments");
    if (!list.ok() || list.value().status != 200) ++api_errors;
  }
  REQUIRE(tuners.get() == 0);
  CHECK(api_errors == 0);
  REQUIRE(WaitForBody(*client, "/api/experiments/svc", "\"finished\"", 120));

  for (int i = 1; i <= 4; ++i) {
    std::string n = std::to_string(i);
    std::string out = ReadFile(dir / ("run" + n + ".out"));
    std::string err = ReadFile(dir / ("run" + n + ".err"));
    INFO("tuner run s" << n << ":\n" << out << err);
    CHECK(ReadFile(dir / ("code" + n + ".txt")) == "0\n");
    CHECK(err.find("database is locked") == std::string::npos);
  }
  std::string readers = ReadFile(dir / "readers.out");
  CHECK(readers.find("database is locked") == std::string::npos);
  CHECK(readers.find("s1") != std::string::npos);

  auto store = storage::TrialStore::OpenReadOnly(service.db()).value();
  CHECK(store->IntegrityCheck().value() == "ok");
  for (std::string name : {"s1", "s2", "s3", "s4", "svc"}) {
    INFO("experiment " << name);
    auto experiment = store->experiments().Find(name).value();
    REQUIRE(experiment.has_value());
    CHECK(experiment->status == core::ExperimentStatus::kFinished);
    auto trials = store->trials().List(experiment->id).value();
    CHECK(trials.size() == 4);
    for (const auto& trial : trials) {
      CHECK((trial.status == core::TrialStatus::kCompleted ||
             trial.status == core::TrialStatus::kStopped));
    }
    auto leases = store->leases().List(experiment->id).value();
    CHECK(leases.size() >= trials.size());
    for (const auto& lease : leases) CHECK(lease.released_at.has_value());
  }
}

}  // namespace
}  // namespace tuner::testing
