// The CLI as a client of `tuner serve`: submit, then status, best, trials
// and stop with --server print what the same verbs print with --db.
#include <sys/wait.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/server/service_fixture.h"

namespace tuner::testing {
namespace {

namespace fs = std::filesystem;

struct Output {
  int code = -1;
  std::string out;
  std::string err;
};

std::string Slurp(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Runs `tuner ARGS` in `dir`.
Output Tuner(const fs::path& dir, const std::string& args) {
  std::string command = "cd '" + dir.string() + "' && '" TUNER_BINARY "' " +
                        args + " > cli-out.txt 2> cli-err.txt";
  int status = std::system(command.c_str());
  Output result;
  result.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = Slurp(dir / "cli-out.txt");
  result.err = Slurp(dir / "cli-err.txt");
  return result;
}

std::string SweepYaml(const std::string& name, int epochs, int sleep_ms) {
  return WithTrainers("name: " + name + R"(
command: TOY --lr {lr} --epochs )" +
                      std::to_string(epochs) + " --sleep-ms " +
                      std::to_string(sleep_ms) + R"(
metric: score
mode: max
time_attr: epoch
search_space: {lr: {type: loguniform, low: 1.0e-3, high: 1.0}}
num_trials: 6
scheduler: {type: asha, max_t: 4, grace_period: 1, reduction_factor: 2}
devices: {kind: cpu, slots: 2}
)");
}

TEST_CASE(
    "CLI: submit to a service, then status, best and trials with "
    "--server print what they print with --db",
    "[server][cli][process]") {
  Service service;
  fs::path dir = service.dir() / "client";
  fs::create_directories(dir);
  std::ofstream(dir / "sweep.yaml") << SweepYaml("remote", 4, 5);
  std::string server = " --server " + service.url();
  std::string db = " --db '" + service.db() + "'";

  Output submitted = Tuner(dir, "submit sweep.yaml" + server);
  INFO(submitted.err);
  REQUIRE(submitted.code == 0);
  CHECK(submitted.out.find("submitted experiment 'remote'") !=
        std::string::npos);
  auto client = service.Client();
  REQUIRE(WaitFor(*client, "/api/experiments/remote", "\"finished\""));

  for (std::string verb :
       {"status", "status remote", "best remote", "best remote --top 3",
        "best remote --format json", "best remote --format yaml",
        "best remote --format args", "trials remote",
        "trials remote --format json", "trials remote --format yaml"}) {
    INFO("tuner " << verb);
    Output local = Tuner(dir, verb + db);
    Output remote = Tuner(dir, verb + server);
    CHECK(local.code == 0);
    CHECK(remote.code == 0);
    CHECK(!local.out.empty());
    CHECK(remote.out == local.out);
  }

  // Refusals: the same exit code, and the server's reason on stderr.
  Output unknown = Tuner(dir, "best nope" + server);
  CHECK(unknown.code == Tuner(dir, "best nope" + db).code);
  CHECK(unknown.err.find("no experiment 'nope'") != std::string::npos);
  Output again = Tuner(dir, "submit sweep.yaml" + server);
  CHECK(again.code == 2);
  CHECK(again.err.find("exists already") != std::string::npos);
  std::ofstream(dir / "bad.yaml") << "name: bad\nmetric: score\n";
  Output bad = Tuner(dir, "submit bad.yaml" + server);
  CHECK(bad.code == 2);
  CHECK(bad.err.find("bad.yaml:1: command: required") != std::string::npos);
  Output down = Tuner(dir, "status --server http://127.0.0.1:1");
  CHECK(down.code == 1);
  CHECK(down.err.find("cannot connect") != std::string::npos);
}

TEST_CASE("CLI: tuner stop --server stops a running experiment",
          "[server][cli][process]") {
  Service service;
  fs::path dir = service.dir() / "client";
  fs::create_directories(dir);
  // Long enough trials that it is still running when the stop comes.
  std::ofstream(dir / "long.yaml") << SweepYaml("long", 4, 2000);
  std::string server = " --server " + service.url();
  REQUIRE(Tuner(dir, "submit long.yaml" + server).code == 0);
  auto client = service.Client();
  REQUIRE(WaitFor(*client, "/api/experiments/long", "\"running\":2"));
  Output stopped = Tuner(dir, "stop long" + server);
  INFO(stopped.err);
  CHECK(stopped.code == 0);
  CHECK(stopped.out == "stopping experiment 'long'\n");
  REQUIRE(WaitFor(*client, "/api/experiments/long", "\"interrupted\"", 10));
  auto trials = nlohmann::json::parse(
      client->Call("GET", "/api/experiments/long/trials").value().body);
  for (const auto& t : trials) {
    CHECK(t["status"] != "running");
  }
  Output twice = Tuner(dir, "stop long" + server);
  CHECK(twice.code == 1);
  CHECK(twice.err.find("is not running") != std::string::npos);
}

}  // namespace
}  // namespace tuner::testing
