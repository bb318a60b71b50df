// The HTTP API over a real loopback socket: submitting, querying, bad
// input, limits, the token, the log endpoint and the event stream.
#include <sys/socket.h>

#include <atomic>
#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "tests/server/prometheus_check.h"
#include "tests/server/service_fixture.h"
#include "tests/server/slow_detection.h"
#include "tests/support/failed_experiment.h"
#include "tests/support/fake_machine.h"
#include "tests/support/wait_for.h"

namespace tuner::testing {
namespace {

using nlohmann::json;

unsigned short service_port(const Service& service) {
  const std::string& url = service.url();
  return static_cast<unsigned short>(std::stoi(url.substr(url.rfind(':') + 1)));
}

// Sends raw bytes and returns what the server answered until it closed.
std::string RawExchange(const std::string& url, const std::string& bytes) {
  namespace net = boost::asio;
  net::io_context io;
  net::ip::tcp::socket socket(io);
  auto port = url.substr(url.rfind(':') + 1);
  socket.connect({net::ip::make_address("127.0.0.1"),
                  static_cast<unsigned short>(std::stoi(port))});
  timeval timeout{60, 0};  // never hang a test on a server that stalls
  setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &timeout,
             sizeof timeout);
  boost::system::error_code ec;
  net::write(socket, net::buffer(bytes), ec);
  std::string out;
  char buffer[4096];
  for (;;) {
    size_t n = socket.read_some(net::buffer(buffer), ec);
    out.append(buffer, n);
    if (ec) break;
  }
  return out;
}

// A real scrape passes the format checker, and `promtool check metrics`
// where Debian's prometheus package is installed (scripts/install-deps.sh).
void CheckWithPromtool(const std::string& metrics) {
  INFO(metrics);
  CHECK(PrometheusProblems(metrics).empty());
  if (std::system("command -v promtool >/dev/null 2>&1") != 0) {
    WARN("promtool is not installed: only the built-in format check ran");
    return;
  }
  auto path = std::filesystem::temp_directory_path() /
              ("tuner-scrape-" + std::to_string(getpid()) + ".txt");
  std::ofstream(path) << metrics;
  std::string command = "promtool check metrics < '" + path.string() + "' > '" +
                        path.string() + ".out' 2>&1";
  int status = std::system(command.c_str());
  std::ifstream out(path.string() + ".out");
  std::string said((std::istreambuf_iterator<char>(out)), {});
  INFO("promtool: " << said);
  CHECK(status == 0);
  CHECK(said.empty());  // lint warnings too
  std::filesystem::remove(path);
  std::filesystem::remove(path.string() + ".out");
}

TEST_CASE("Service: submit over HTTP, then status, best, trials, trial, curves",
          "[server][process]") {
  Service service;
  auto client = service.Client();
  auto health = client->Call("GET", "/healthz");
  REQUIRE(health.ok());
  CHECK(health.value().status == 200);

  auto submitted =
      client->Call("POST", "/api/experiments", ToySweepYaml("api1"));
  REQUIRE(submitted.ok());
  INFO(submitted.value().body);
  REQUIRE(submitted.value().status == 201);
  CHECK(json::parse(submitted.value().body)["name"] == "api1");

  REQUIRE(WaitForBody(*client, "/api/experiments/api1", "\"finished\""));
  // A known experiment that is not running: a state conflict, not a 404.
  auto stop = client->Call("POST", "/api/experiments/api1/stop");
  CHECK(stop.value().status == 409);
  CHECK(stop.value().body.find("is not running (it is finished)") !=
        std::string::npos);
  auto list = client->Call("GET", "/api/experiments");
  auto experiments = json::parse(list.value().body);
  REQUIRE(experiments.size() == 1);
  CHECK(experiments[0]["counts"]["completed"].get<int>() >= 1);
  CHECK(experiments[0]["best"]["value"].is_number());

  auto best = client->Call("GET", "/api/experiments/api1/best?top=2");
  REQUIRE(best.value().status == 200);
  auto top = json::parse(best.value().body);
  REQUIRE(top.size() == 2);
  CHECK(top[0]["last_value"].get<double>() >= 0);
  for (std::string odd : {"?top=02", "?top=+2", "?top=100001"}) {
    INFO(odd);
    CHECK(client->Call("GET", "/api/experiments/api1/best" + odd)
              .value()
              .status == 400);
  }

  auto trials = client->Call("GET", "/api/experiments/api1/trials");
  CHECK(json::parse(trials.value().body).size() == 4);
  auto table = client->Call("GET", "/api/experiments/api1/trials?format=table");
  CHECK(table.value().content_type.find("text/plain") == 0);
  CHECK(table.value().body.find("status") != std::string::npos);

  int64_t id = top[0]["id"];
  auto trial = client->Call("GET", "/api/trials/" + std::to_string(id));
  auto t = json::parse(trial.value().body);
  CHECK(t["experiment"] == "api1");
  CHECK(t["reports"].size() == 4);
  CHECK(t["reports"][3]["metrics"]["epoch"] == 4.0);

  auto curves = json::parse(
      client->Call("GET", "/api/experiments/api1/curves").value().body);
  CHECK(curves["trials"]["id"].size() == 4);
  CHECK(curves["decisions"]["trial"].size() >= 1);
  auto leases = json::parse(
      client->Call("GET", "/api/experiments/api1/leases").value().body);
  CHECK(leases.size() >= 4);
  CHECK(leases[0]["released_at"].is_number());

  auto metrics = client->Call("GET", "/metrics").value().body;
  CHECK(metrics.find("tuner_trials{experiment=\"api1\",state=\"completed\"}") !=
        std::string::npos);
  // Every stored report was counted once.
  size_t stored_reports = 0;
  for (const auto& trial : json::parse(trials.value().body)) {
    auto one = client->Call(
        "GET", "/api/trials/" + std::to_string(trial["id"].get<int>()));
    stored_reports += json::parse(one.value().body)["reports"].size();
  }
  CHECK(metrics.find("tuner_reports_total{experiment=\"api1\"} " +
                     std::to_string(stored_reports) + "\n") !=
        std::string::npos);
  CheckWithPromtool(metrics);

  auto again = client->Call("POST", "/api/experiments", ToySweepYaml("api1"));
  CHECK(again.value().status == 409);
  auto resume = client->Call("POST", "/api/experiments/api1/resume");
  CHECK(resume.value().status == 409);
}

TEST_CASE("Service: an experiment that failed inside the tuner says why",
          "[server]") {
  Service service;
  AddFailedExperiment(*storage::TrialStore::Open(service.db()).value(),
                      "broken", "internal error: boom");
  auto client = service.Client();
  auto one = client->Call("GET", "/api/experiments/broken");
  REQUIRE(one.ok());
  REQUIRE(one.value().status == 200);
  auto body = json::parse(one.value().body);
  CHECK(body["status"] == "failed");
  CHECK(body["reason"] == "internal error: boom");
  auto list = json::parse(client->Call("GET", "/api/experiments").value().body);
  REQUIRE(list.size() == 1);
  CHECK(list[0]["reason"] == "internal error: boom");
}

TEST_CASE("Service: bad bodies, unknown names and bad targets get clear errors",
          "[server]") {
  Service service;
  auto client = service.Client();
  auto bad = client->Call("POST", "/api/experiments?source=x.yaml",
                          "name: broken\nmetric: score\n");
  REQUIRE(bad.ok());
  CHECK(bad.value().status == 400);
  CHECK(bad.value().body.find("x.yaml:1: command: required") !=
        std::string::npos);
  auto typo = client->Call("POST", "/api/experiments",
                           ToySweepYaml("typo") + "num_trails: 3\n");
  CHECK(typo.value().status == 400);
  CHECK(typo.value().body.find("num_trails") != std::string::npos);
  auto garbage = client->Call("POST", "/api/experiments", "{[}: :");
  CHECK(garbage.value().status == 400);
  auto empty = client->Call("POST", "/api/experiments", "");
  CHECK(empty.value().status == 400);

  auto unknown = client->Call("GET", "/api/experiments/nope/best");
  CHECK(unknown.value().status == 404);
  CHECK(unknown.value().body.find("no experiment 'nope'") != std::string::npos);
  CHECK(client->Call("GET", "/api/experiments/bad%20name").value().status ==
        400);
  CHECK(client->Call("GET", "/api/experiments/..%2f..%2fetc").value().status ==
        400);
  CHECK(client->Call("POST", "/api/experiments/nope/stop").value().status ==
        404);
  CHECK(client->Call("GET", "/api/trials/abc").value().status == 400);
  // Integers as the CLI and the config take them: decimal, no leading zero.
  for (std::string odd :
       {"/api/trials/01", "/api/trials/+1", "/api/trials/1?limit=010",
        "/api/trials/1?after=01", "/api/trials/1/log?tail=010"}) {
    INFO(odd);
    CHECK(client->Call("GET", odd).value().status == 400);
  }
  CHECK(client->Call("GET", "/api/trials/999").value().status == 404);
  CHECK(client->Call("DELETE", "/api/experiments").value().status == 405);
  CHECK(client->Call("GET", "/api/nothing").value().status == 404);
  CHECK(client->Call("GET", "/api/experiments?format=xml").value().status ==
        400);
  // A parameter given twice is refused, not read as one of them.
  for (std::string twice : {"/api/experiments/nope/curves?since=1&since=2",
                            "/api/experiments?format=json&format=csv"}) {
    INFO(twice);
    auto answer = client->Call("GET", twice).value();
    CHECK(answer.status == 400);
    CHECK(answer.body.find("malformed request target") != std::string::npos);
  }
  // Still serving.
  CHECK(client->Call("GET", "/healthz").value().status == 200);
}

TEST_CASE("Service: oversized bodies and headers are refused, slow clients cut",
          "[server]") {
  Service::Options options;
  options.limits.body_bytes = 4096;
  options.limits.read_timeout = std::chrono::seconds(1);
  Service service(options);
  auto client = service.Client();
  auto big = client->Call("POST", "/api/experiments", std::string(5000, 'x'));
  REQUIRE(big.ok());
  CHECK(big.value().status == 413);

  std::string huge_header =
      "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " +
      std::string(10000, 'a') + "\r\n\r\n";
  CHECK(RawExchange(service.url(), huge_header).find("431") !=
        std::string::npos);

  // A client that sends half a request and stalls is disconnected.
  auto start = std::chrono::steady_clock::now();
  std::string answer = RawExchange(
      service.url(), "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n");
  double waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  CHECK(answer.empty());
  // Cut by the server's 1 s read timeout, not by this client's 60 s one.
  CHECK(waited < 30);
  CHECK(service.Client()->Call("GET", "/healthz").value().status == 200);
}

TEST_CASE("Service: past the connection cap a client gets 503 at once",
          "[server]") {
  Service::Options options;
  options.limits.max_connections = 4;
  Service service(options);
  namespace net = boost::asio;
  net::io_context io;
  auto port = service_port(service);
  std::vector<net::ip::tcp::socket> held;
  for (int i = 0; i < 4; ++i) {
    held.emplace_back(io);
    held.back().connect({net::ip::make_address("127.0.0.1"), port});
  }
  // The server accepts in order, and counts each connection as it accepts
  // it: the fifth is past the cap whatever the timing.
  std::string health =
      "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
  std::string refused = RawExchange(service.url(), health);
  CHECK(refused.rfind("HTTP/1.1 503", 0) == 0);
  CHECK(refused.find("too many connections") != std::string::npos);
  // A closed connection frees its place (once the server has seen it go).
  held.front().close();
  auto served = WaitFor(
      "GET /healthz to be served after a connection closed",
      std::chrono::seconds(60),
      [&] {
        return RawExchange(service.url(), health).rfind("HTTP/1.1 200", 0) == 0;
      },
      std::chrono::milliseconds(20));
  CHECK(served);
}

TEST_CASE("Service: mutating requests need the token and reads do not",
          "[server][process]") {
  Service::Options options;
  options.token = "s3cret-token-0123456789";
  Service service(options);
  auto anonymous = service.Client("");
  auto refused =
      anonymous->Call("POST", "/api/experiments", ToySweepYaml("tok", 1));
  CHECK(refused.value().status == 401);
  CHECK(refused.value().body.find("needs a token") != std::string::npos);
  auto wrong = service.Client("s3cret-token-0123456788");
  auto wrong_answer = wrong->Call("POST", "/api/experiments/tok/stop");
  CHECK(wrong_answer.value().status == 401);
  CHECK(wrong_answer.value().body.find("the token sent is not this "
                                       "server's") != std::string::npos);
  CHECK(anonymous->Call("GET", "/api/experiments").value().status == 200);
  auto owner = service.Client(options.token);
  auto accepted =
      owner->Call("POST", "/api/experiments", ToySweepYaml("tok", 1));
  CHECK(accepted.value().status == 201);
}

TEST_CASE("Service: the log endpoint serves a trial's own logs only",
          "[server][process]") {
  Service service;
  auto client = service.Client();
  REQUIRE(client->Call("POST", "/api/experiments", ToySweepYaml("logs", 2))
              .value()
              .status == 201);
  REQUIRE(WaitForBody(*client, "/api/experiments/logs", "\"finished\""));
  auto tail = client->Call("GET", "/api/trials/1/log?tail=1");
  REQUIRE(tail.value().status == 200);
  CHECK(std::count(tail.value().body.begin(), tail.value().body.end(), '\n') ==
        1);
  CHECK(client->Call("GET", "/api/trials/1/log?stream=stderr").value().status ==
        200);
  CHECK(
      client->Call("GET", "/api/trials/1/log?stream=../../x").value().status ==
      400);
  CHECK(client->Call("GET", "/api/trials/1/log?tail=-1").value().status == 400);
  // A trial that replaced its log with a link gets no file through it.
  auto dir = service.dir() / "tuner.db.trials" / "logs" / "2";
  std::filesystem::remove(dir / "stdout.log");
  std::filesystem::create_symlink("/etc/passwd", dir / "stdout.log");
  auto linked = client->Call("GET", "/api/trials/2/log");
  CHECK(linked.value().status == 404);
  CHECK(linked.value().body.find("root:") == std::string::npos);
}

TEST_CASE("Service: the event stream tells trials' starts, reports and ends",
          "[server][process]") {
  namespace net = boost::asio;
  Service service;
  net::io_context io;
  net::ip::tcp::socket socket(io);
  socket.connect({net::ip::make_address("127.0.0.1"), service_port(service)});
  timeval timeout{0, 200000};
  setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &timeout,
             sizeof timeout);
  net::write(socket,
             net::buffer(std::string(
                 "GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")));
  auto client = service.Client();
  REQUIRE(client->Call("POST", "/api/experiments", ToySweepYaml("sse", 2))
              .value()
              .status == 201);
  std::string stream;
  // Each read waits 200 ms at most (SO_RCVTIMEO); an error other than that
  // timeout ends the stream.
  WaitFor(
      "event: experiment_ended on /api/events", std::chrono::seconds(30),
      [&] {
        char buffer[4096];
        boost::system::error_code ec;
        size_t n = socket.read_some(net::buffer(buffer), ec);
        stream.append(buffer, n);
        return stream.find("event: experiment_ended") != std::string::npos ||
               (ec && ec != net::error::would_block &&
                ec != net::error::try_again);
      },
      std::chrono::milliseconds(0));
  INFO(stream);
  CHECK(stream.find("text/event-stream") != std::string::npos);
  CHECK(stream.find("event: experiment_started") != std::string::npos);
  CHECK(stream.find("event: trial_started") != std::string::npos);
  CHECK(stream.find("event: trial_reported") != std::string::npos);
  CHECK(stream.find("\"action\":\"") != std::string::npos);
  CHECK(stream.find("event: experiment_ended") != std::string::npos);
  bool ended = stream.find("event: trial_completed") != std::string::npos ||
               stream.find("event: trial_stopped") != std::string::npos;
  CHECK(ended);
  // Event ids increase, so a client can resume with Last-Event-ID.
  CHECK(stream.find("id: 1\n") != std::string::npos);
}

}  // namespace
}  // namespace tuner::testing

namespace tuner::testing {
namespace {

TEST_CASE(
    "Service: env values are not served, and a trial's reports come in pages",
    "[server][process]") {
  Service service;
  auto client = service.Client();
  std::string yaml = ToySweepYaml("paged", 1, 1, 4) +
                     "env: {API_KEY: hunter2-secret, MODE: \"{lr}\"}\n";
  REQUIRE(client->Call("POST", "/api/experiments", yaml).value().status == 201);
  REQUIRE(WaitForBody(*client, "/api/experiments/paged", "\"finished\""));
  std::string shown =
      client->Call("GET", "/api/experiments/paged").value().body;
  CHECK(shown.find("hunter2-secret") == std::string::npos);
  CHECK(shown.find("API_KEY") != std::string::npos);
  CHECK(shown.find("***") != std::string::npos);

  auto trials = nlohmann::json::parse(
      client->Call("GET", "/api/experiments/paged/trials").value().body);
  REQUIRE(trials.size() == 1);
  std::string trial =
      "/api/trials/" + std::to_string(trials[0]["id"].get<int>());
  auto all = nlohmann::json::parse(client->Call("GET", trial).value().body);
  REQUIRE(all["reports"].size() == 4);
  CHECK(all["next_after"].is_null());
  auto first = nlohmann::json::parse(
      client->Call("GET", trial + "?limit=3").value().body);
  CHECK(first["reports"].size() == 3);
  REQUIRE(first["next_after"] == 3);
  auto rest = nlohmann::json::parse(
      client->Call("GET", trial + "?after=3&limit=3").value().body);
  REQUIRE(rest["reports"].size() == 1);
  CHECK(rest["reports"][0]["seq"] == 4);
  CHECK(rest["next_after"].is_null());
  CHECK(client->Call("GET", trial + "?limit=0").value().status == 400);
  CHECK(client->Call("GET", trial + "?limit=10001").value().status == 400);
  CHECK(client->Call("GET", trial + "?after=x").value().status == 400);
}

// The config of `ToySweepYaml` on the fake machine's Habana cards.
std::string HabanaSweepYaml(const std::string& name, int sleep_ms) {
  std::string yaml = ToySweepYaml(name, 1, sleep_ms, 4);
  yaml.replace(yaml.find("devices: {kind: cpu, slots: 2}"), 30,
               "devices: {kind: habana}");
  return yaml;
}

TEST_CASE("Service: a submit inside device detection blocks no HTTP thread",
          "[server][process]") {
  UseFakeMachine("dl1");
  SlowDetection detection;  // shut: the submit waits inside detection
  Service service;
  std::atomic<int> submitted{0};
  std::thread submitter([&] {
    auto client = service.Client();
    auto r = client->Call("POST", "/api/experiments",
                          HabanaSweepYaml("slow-detect", 1));
    submitted = r.ok() ? r.value().status : -1;
  });
  REQUIRE(WaitFor("the detection to enter its gate", std::chrono::seconds(60),
                  [&] { return detection.Entered(); }));
  // The fixture serves HTTP on one thread: it is free while the submit
  // waits inside detection.
  auto other = service.Client();
  CHECK(other->Call("GET", "/healthz").value().status == 200);
  CHECK(other->Call("GET", "/api/experiments").value().status == 200);
  CHECK(submitted == 0);  // still inside detection: the gate is shut
  detection.Open();
  submitter.join();
  CHECK(submitted == 201);
}

TEST_CASE(
    "Service: a resume inside device detection leaves the sweeps' thread free",
    "[server][process]") {
  UseFakeMachine("dl1");
  SlowDetection detection;
  detection.Open();
  Service service;
  auto client = service.Client();
  // A stored experiment on the Habana cards, stopped while it ran.
  REQUIRE(client
              ->Call("POST", "/api/experiments",
                     HabanaSweepYaml("slow-resume", 2000))
              .value()
              .status == 201);
  REQUIRE(WaitForBody(*client, "/api/experiments/slow-resume", "\"running\""));
  REQUIRE(client->Call("POST", "/api/experiments/slow-resume/stop")
              .value()
              .status == 202);
  REQUIRE(
      WaitForBody(*client, "/api/experiments/slow-resume", "\"interrupted\""));

  detection.Shut();
  std::atomic<int> resumed{0};
  std::string resume_body;
  std::thread resumer([&] {
    auto r =
        service.Client()->Call("POST", "/api/experiments/slow-resume/resume");
    if (r.ok()) resume_body = r.value().body;
    resumed = r.ok() ? r.value().status : -1;
  });
  REQUIRE(WaitFor("the resume's detection to enter its gate",
                  std::chrono::seconds(60),
                  [&] { return detection.Entered(); }));
  // Meanwhile the sweeps' thread answers: a stop of the experiment that
  // is not running yet is refused there (409), at once.
  std::atomic<int> stopped{0};
  std::thread stopper([&] {
    auto r =
        service.Client()->Call("POST", "/api/experiments/slow-resume/stop");
    stopped = r.ok() ? r.value().status : -1;
  });
  CHECK(WaitFor("the stop to be answered", std::chrono::seconds(10),
                [&] { return stopped != 0; }));
  CHECK(stopped == 409);
  CHECK(resumed == 0);  // still inside detection: the gate is shut
  detection.Open();
  resumer.join();
  stopper.join();
  INFO(resume_body);
  CHECK(resumed == 202);
}

}  // namespace
}  // namespace tuner::testing
