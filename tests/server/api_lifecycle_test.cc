// POST /api/experiments/{name}/extend and /delete: token, answers, errors.
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/server/service_fixture.h"
#include "tuner/base/tuner_lock.h"
#include "tuner/config/config_loader.h"
#include "tuner/config/stored_config.h"

namespace tuner::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// A stopped experiment as `tuner run` stores it, with one trial directory
// (`status` "running": as a tuner killed while it ran leaves it).
void AddStopped(const Service& service, const std::string& name,
                const std::string& status = "interrupted",
                const std::string& space =
                    "search_space: {lr: {type: uniform, low: 0, high: 1}}\n"
                    "num_trials: 8\n") {
  std::string yaml = "name: " + name +
                     "\ncommand: /bin/true {lr}\nmetric: s\nmode: max\n" +
                     space;
  auto config = LoadConfigText(yaml, "x.yaml", service.dir().string(),
                               service.dir().string());
  REQUIRE(config.ok());
  std::string root = TrialsRootFor(service.db(), name);
  auto store = storage::TrialStore::Open(service.db()).value();
  storage::ExperimentRecord e;
  e.name = name;
  e.status = core::ParseExperimentStatus(status).value();
  e.metric = "s";
  e.time_attr = "report";
  e.config_json = StoredConfigJson(config.value(), yaml, "x.yaml",
                                   service.dir().string(), service.db());
  REQUIRE(store->experiments().Create(e).ok());
  REQUIRE(store->Commit().ok());
  fs::create_directories(fs::path(root) / "1");
  std::ofstream(fs::path(root) / "1" / "stdout.log") << "x\n";
}

TEST_CASE("Service: extend raises the budget, with the token only",
          "[server][lifecycle]") {
  Service service;
  AddStopped(service, "grow");
  auto anonymous = service.Client("");
  CHECK(anonymous->Call("POST", "/api/experiments/grow/extend?trials=4")
            .value()
            .status == 401);
  auto client = service.Client();
  auto r = client->Call("POST", "/api/experiments/grow/extend?trials=4");
  REQUIRE(r.ok());
  INFO(r.value().body);
  REQUIRE(r.value().status == 200);
  auto body = json::parse(r.value().body);
  CHECK(body["name"] == "grow");
  CHECK(body["budget"] == 12);
  CHECK(body["trials"] == 0);
  CHECK(body["status"] == "interrupted");
  CHECK(body["running"] == false);
  for (const char* bad :
       {"", "?trials=0", "?trials=-1", "?trials=1x", "?trials=10000001",
        "?trials=010", "?trials=+1", "?trials=1e1"}) {
    auto refused =
        client->Call("POST", std::string("/api/experiments/grow/extend") + bad);
    CHECK(refused.value().status == 400);
  }
  CHECK(client->Call("POST", "/api/experiments/nope/extend?trials=1")
            .value()
            .status == 404);
  CHECK(client->Call("GET", "/api/experiments/grow/extend").value().status ==
        405);
}

TEST_CASE("Service: extend says why a spent grid cannot grow (400)",
          "[server][lifecycle]") {
  Service service;
  AddStopped(service, "g", "interrupted",
             "search_space: {lr: {type: grid, values: [0.1, 0.2]}}\n"
             "searcher: {type: grid}\n");
  auto r = service.Client()->Call("POST", "/api/experiments/g/extend?trials=1");
  REQUIRE(r.ok());
  CHECK(r.value().status == 400);
  CHECK(r.value().body.find("searches a grid of 2 combinations and its "
                            "budget is 2 trials: it has no more configs to "
                            "run") != std::string::npos);
}

TEST_CASE("Service: delete removes rows and files, 409 while it runs",
          "[server][lifecycle]") {
  Service service;
  AddStopped(service, "gone");
  auto client = service.Client();
  CHECK(service.Client("")
            ->Call("POST", "/api/experiments/gone/delete")
            .value()
            .status == 401);
  std::string root = TrialsRootFor(service.db(), "gone");
  {
    auto lock = HoldTunerLock(TunerLockPath(root, "gone"), CliOwnerText());
    REQUIRE(lock);
    auto busy = client->Call("POST", "/api/experiments/gone/delete");
    CHECK(busy.value().status == 409);
    CHECK(busy.value().body.find("stop it first") != std::string::npos);
  }
  auto r = client->Call("POST", "/api/experiments/gone/delete");
  REQUIRE(r.ok());
  INFO(r.value().body);
  REQUIRE(r.value().status == 200);
  auto body = json::parse(r.value().body);
  CHECK(body["status"] == "deleted");
  CHECK(body["removed"] == 1);
  CHECK(body["left"].empty());
  CHECK_FALSE(fs::exists(root));
  CHECK(client->Call("GET", "/api/experiments/gone").value().status == 404);
  CHECK(client->Call("POST", "/api/experiments/gone/delete").value().status ==
        404);
}

TEST_CASE("Service: stop names the CLI tuner that runs an experiment (409)",
          "[server][lifecycle]") {
  Service service;
  AddStopped(service, "cli");
  auto lock = HoldTunerLock(
      TunerLockPath(TrialsRootFor(service.db(), "cli"), "cli"), CliOwnerText());
  REQUIRE(lock);
  auto r = service.Client()->Call("POST", "/api/experiments/cli/stop");
  REQUIRE(r.ok());
  CHECK(r.value().status == 409);
  INFO(r.value().body);
  CHECK(r.value().body.find("experiment 'cli' is run by a CLI tuner (pid " +
                            std::to_string(getpid()) +
                            "), not by this service; stop it on the machine "
                            "that runs it: tuner stop cli --db " +
                            service.db()) != std::string::npos);
}

TEST_CASE("Service: stop of an experiment a killed tuner left says so (409)",
          "[server][lifecycle]") {
  Service service;
  AddStopped(service, "orphan", "running");
  auto r = service.Client()->Call("POST", "/api/experiments/orphan/stop");
  REQUIRE(r.ok());
  CHECK(r.value().status == 409);
  INFO(r.value().body);
  CHECK(r.value().body.find(
            "experiment 'orphan' is not running (no tuner runs it since its "
            "tuner ended without stopping it; take it up with POST "
            ".../resume (tuner resume orphan --server), then stop it)") !=
        std::string::npos);
}

}  // namespace
}  // namespace tuner::testing
