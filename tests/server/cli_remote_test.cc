// The CLI as a client of `tuner serve`: submit, then status, best, trials
// and stop with --server print what the same verbs print with --db.
#include <sys/stat.h>

#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/write.hpp>
#include <cctype>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "tests/server/service_fixture.h"
#include "tests/support/tuner_cli.h"
#include "tests/support/wait_for.h"
#include "tuner/server/listening_socket.h"
#include "tuner/server/token.h"

namespace tuner::testing {
namespace {

namespace fs = std::filesystem;

// A directory for the CLI's files, beside the service's database.
fs::path ClientDir(const Service& service) {
  fs::path dir = service.dir() / "client";
  fs::create_directories(dir);
  return dir;
}

TEST_CASE(
    "CLI: submit to a service, then status, best and trials with "
    "--server print what they print with --db",
    "[server][cli][process]") {
  Service service;
  fs::path dir = ClientDir(service);
  std::ofstream(dir / "sweep.yaml") << ToySweepYaml("remote", 6, 5, 4);
  std::string db = " --db '" + service.db() + "'";
  // With --db, the CLI finds the service's token beside the database.
  std::string server = " --server " + service.url() + db;

  Output submitted = RunTuner(dir, "submit sweep.yaml" + server);
  INFO(submitted.err);
  REQUIRE(submitted.code == 0);
  CHECK(submitted.out.find("submitted experiment 'remote'") !=
        std::string::npos);
  auto client = service.Client();
  REQUIRE(WaitForBody(*client, "/api/experiments/remote", "\"finished\""));

  for (std::string verb :
       {"status", "status remote", "best remote", "best remote --top 3",
        "best remote --format json", "best remote --format yaml",
        "best remote --format args", "trials remote",
        "trials remote --format json", "trials remote --format yaml",
        "status --format json", "status remote --format csv",
        "best remote --by best --top 2", "best remote --format csv",
        "best remote --format command", "trials remote --format csv",
        "reports remote", "reports remote --format csv",
        "reports remote --format jsonl"}) {
    INFO("tuner " << verb);
    Output local = RunTuner(dir, verb + db);
    Output remote = RunTuner(dir, verb + server);
    CHECK(local.code == 0);
    CHECK(remote.code == 0);
    CHECK(!local.out.empty());
    CHECK(remote.out == local.out);
  }

  // Refusals: the same exit code, and the server's reason on stderr.
  Output unknown = RunTuner(dir, "best nope" + server);
  CHECK(unknown.code == RunTuner(dir, "best nope" + db).code);
  CHECK(unknown.err.find("no experiment 'nope'") != std::string::npos);
  Output no_status = RunTuner(dir, "status nope" + server);
  CHECK(no_status.code == 1);
  CHECK(no_status.code == RunTuner(dir, "status nope" + db).code);
  CHECK(no_status.err.find("no experiment 'nope'") != std::string::npos);
  for (std::string verb : {"delete nope --yes", "extend nope --trials 1"}) {
    INFO("tuner " << verb);
    Output remote = RunTuner(dir, verb + server);
    CHECK(remote.code == 1);
    CHECK(remote.code == RunTuner(dir, verb + db).code);
    CHECK(remote.err == unknown.err);  // as `tuner best` says it
  }
  Output again = RunTuner(dir, "submit sweep.yaml" + server);
  CHECK(again.code == 2);
  CHECK(again.err.find("exists already") != std::string::npos);
  std::ofstream(dir / "bad.yaml") << "name: bad\nmetric: score\n";
  Output bad = RunTuner(dir, "submit bad.yaml" + server);
  CHECK(bad.code == 2);
  CHECK(bad.err.find("bad.yaml:1: command: required") != std::string::npos);
  Output down = RunTuner(dir, "status --server http://127.0.0.1:1");
  CHECK(down.code == 1);
  CHECK(down.err.find("cannot connect") != std::string::npos);
}

TEST_CASE("CLI: tuner stop --server stops a running experiment",
          "[server][cli][process]") {
  Service service;
  fs::path dir = ClientDir(service);
  // Long enough trials that it is still running when the stop comes.
  std::ofstream(dir / "long.yaml") << ToySweepYaml("long", 6, 2000, 4);
  std::string server =
      " --server " + service.url() + " --db '" + service.db() + "'";
  REQUIRE(RunTuner(dir, "submit long.yaml" + server).code == 0);
  auto client = service.Client();
  REQUIRE(WaitForBody(*client, "/api/experiments/long", "\"running\":2"));
  Output stopped = RunTuner(dir, "stop long" + server);
  INFO(stopped.err);
  CHECK(stopped.code == 0);
  // What `tuner stop --db` prints, once the trials are gone.
  CHECK(stopped.out == "long: stopped\n");
  CHECK(client->Call("GET", "/api/experiments/long")
            .value()
            .body.find("\"interrupted\"") != std::string::npos);
  auto trials = nlohmann::json::parse(
      client->Call("GET", "/api/experiments/long/trials").value().body);
  for (const auto& t : trials) {
    CHECK(t["status"] != "running");
  }
  Output twice = RunTuner(dir, "stop long" + server);
  CHECK(twice.code == 2);
  CHECK(twice.err.find("is not running") != std::string::npos);
  // A name the service does not know, or none an experiment can have (it
  // would not name one in a URL path): what --db says, with its exit code
  // (1, as best and delete answer an unknown name).
  for (const char* verb : {"stop", "resume", "best", "trials", "reports"}) {
    for (std::string name : {"nope", "../nope", "a/b"}) {
      std::string args = std::string(verb) + " '" + name + "'";
      Output unknown = RunTuner(dir, args + server);
      Output local = RunTuner(dir, args + " --db '" + service.db() + "'");
      INFO(args << ": " << unknown.err << " / " << local.err);
      CHECK(unknown.code == 1);
      CHECK(local.code == unknown.code);
      CHECK(unknown.err.find("no experiment '" + name + "' in this server") !=
            std::string::npos);
    }
  }

  // tuner resume --server takes it up again on the service.
  Output resumed = RunTuner(dir, "resume long" + server);
  INFO(resumed.err);
  CHECK(resumed.code == 0);
  CHECK(resumed.out == "long: resumed on " + service.url() + "\n");
  REQUIRE(WaitForBody(*client, "/api/experiments/long", "\"running\":2"));
  CHECK(client->Call("GET", "/api/experiments/long")
            .value()
            .body.find("\"status\":\"running\"") != std::string::npos);
  Output running = RunTuner(dir, "resume long" + server);
  CHECK(running.code == 2);
  CHECK(running.err.find("is running") != std::string::npos);
  Output unknown = RunTuner(dir, "resume nope" + server);
  CHECK(unknown.code != 0);
  CHECK(unknown.err.find("no experiment 'nope'") != std::string::npos);
  CHECK(RunTuner(dir, "stop long" + server).code == 0);
}

TEST_CASE("CLI: --token-file and $TUNER_TOKEN carry the service's token",
          "[server][cli][process]") {
  Service::Options options;
  options.token = "cli-token-0123456789abcdef";
  Service service(options);
  fs::path dir = ClientDir(service);
  std::ofstream(dir / "a.yaml") << ToySweepYaml("tok-a", 6, 1, 1);
  std::ofstream(dir / "b.yaml") << ToySweepYaml("tok-b", 6, 1, 1);
  std::ofstream(dir / "token") << options.token << "\n";
  std::string server = " --server " + service.url();

  Output refused = RunTuner(dir, "submit a.yaml" + server);
  CHECK(refused.code == 1);
  CHECK(refused.err.find("needs a token") != std::string::npos);
  Output missing = RunTuner(dir, "submit a.yaml --token-file nope" + server);
  CHECK(missing.code == 2);
  CHECK(missing.err.find(
            "cannot read the token: nope: No such file or directory") !=
        std::string::npos);
  CHECK(RunTuner(dir, "submit a.yaml --token-file token" + server).code == 0);
  // Set for the tuner run only: setenv in this process would race with the
  // service's threads reading the environment.
  std::string from_env = "cd '" + dir.string() + "' && TUNER_TOKEN='" +
                         options.token + "' '" TUNER_BINARY "' submit b.yaml" +
                         server + " > /dev/null 2>&1";
  CHECK(std::system(from_env.c_str()) == 0);
  // Reads need no token.
  CHECK(RunTuner(dir, "status" + server).code == 0);
}

TEST_CASE("CLI: tuner serve refuses a short token and a bad --listen",
          "[server][cli][process]") {
  fs::path dir = fs::temp_directory_path() /
                 ("tuner-serve-refuse-" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "short") << "abc\n";
  Output weak = RunTuner(dir, "serve --listen 0.0.0.0:0 --token-file short");
  CHECK(weak.code == 2);
  CHECK(weak.err.find("too short") != std::string::npos);
  Output bad = RunTuner(dir, "serve --listen localhost");
  CHECK(bad.code == 2);
  CHECK(bad.err.find("HOST:PORT") != std::string::npos);
  for (std::string listen : {"127.0.0.1:018951", "'127.0.0.1: 18952'", "[::1:0",
                             "::1:0", "127.1:0", "0:0", "http://127.0.0.1:0"}) {
    INFO(listen);
    Output odd = RunTuner(dir, "serve --listen " + listen);
    CHECK(odd.code == 2);
    CHECK(odd.err.starts_with("tuner: --listen: "));
  }
  CHECK_FALSE(fs::exists(dir / "tuner.db"));  // nothing was created
  fs::remove_all(dir);
}

TEST_CASE(
    "CLI: the README's tuner submit configs/digits-lr-sweep.yaml, from the "
    "repository's root, runs its trials there",
    "[server][cli][process]") {
  Service service;  // its own directory is neither the root nor configs/
  fs::path out = ClientDir(service);
  std::string command = "cd '" SOURCE_DIR "' && '" TUNER_BINARY
                        "' submit configs/digits-lr-sweep.yaml --server " +
                        service.url() + " --db '" + service.db() + "' > '" +
                        (out / "out.txt").string() + "' 2> '" +
                        (out / "err.txt").string() + "'";
  int status = std::system(command.c_str());
  INFO(ReadFile(out / "err.txt"));
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  // Until one trial completes (ASHA lets the first one run to max_t), or
  // one fails: a trial that fails names the path it could not use.
  auto store = storage::TrialStore::OpenReadOnly(service.db());
  REQUIRE(store.ok());
  int completed = 0, failed = 0;
  std::string reason;
  WaitFor(
      "a trial of digits-lr-sweep to complete or fail",
      std::chrono::seconds(90),
      [&] {
        auto e = store.value()->experiments().Find("digits-lr-sweep");
        if (!e.ok() || !e.value()) return false;
        auto trials = store.value()->trials().List(e.value()->id);
        if (!trials.ok()) return false;
        for (const auto& t : trials.value()) {
          completed += t.status == core::TrialStatus::kCompleted;
          failed += t.status == core::TrialStatus::kFailed;
          if (t.status == core::TrialStatus::kFailed) reason = t.reason;
        }
        return completed > 0 || failed > 0;
      },
      std::chrono::milliseconds(200));
  INFO("a failed trial: " << reason);
  CHECK(failed == 0);
  CHECK(completed > 0);
  // The service stops the rest of the sweep as it shuts down.
}

}  // namespace
}  // namespace tuner::testing

namespace tuner::testing {
namespace {

namespace fs = std::filesystem;
namespace net = boost::asio;
using tcp = net::ip::tcp;

// A plain HTTP listener on loopback, not a tuner: it answers every request
// with `status_line` ("307 Temporary Redirect"; "401 X" for a bare 401),
// `headers` (each ending in CRLF) and `body`, and keeps the head of each
// request it received.
class PlainListener {
 public:
  explicit PlainListener(int status)
      : PlainListener(std::to_string(status) + " X", "",
                      R"({"error": "plain listener"})") {}
  PlainListener(std::string status_line, std::string headers, std::string body)
      : status_line_(std::move(status_line)),
        headers_(std::move(headers)),
        body_(std::move(body)),
        acceptor_(io_, tcp::endpoint(net::ip::make_address("127.0.0.1"), 0)) {
    thread_ = std::thread([this] { Serve(); });
  }
  ~PlainListener() {
    stopping_ = true;
    tcp::socket wake(io_);
    boost::system::error_code ec;
    wake.connect(acceptor_.local_endpoint(), ec);
    thread_.join();
  }
  std::string url() const {
    return "http://127.0.0.1:" +
           std::to_string(acceptor_.local_endpoint().port());
  }
  // The heads received so far, header names in lower case.
  std::vector<std::string> Heads() {
    std::lock_guard<std::mutex> lock(mutex_);
    return heads_;
  }

 private:
  void Serve() {
    for (;;) {
      tcp::socket socket(io_);
      boost::system::error_code ec;
      acceptor_.accept(socket, ec);
      if (stopping_ || ec) return;
      net::streambuf buffer;
      size_t n = net::read_until(socket, buffer, "\r\n\r\n", ec);
      if (ec) continue;
      std::string head(net::buffers_begin(buffer.data()),
                       net::buffers_begin(buffer.data()) + n);
      for (char& c : head) c = static_cast<char>(std::tolower(c));
      {
        std::lock_guard<std::mutex> lock(mutex_);
        heads_.push_back(head);
      }
      ReadBody(socket, buffer, n, head);
      std::string reply = "HTTP/1.1 " + status_line_ + "\r\n" + headers_ +
                          "Content-Type: application/json\r\n"
                          "Content-Length: " +
                          std::to_string(body_.size()) +
                          "\r\nConnection: close\r\n\r\n" + body_;
      net::write(socket, net::buffer(reply), ec);
      socket.shutdown(tcp::socket::shutdown_both, ec);
    }
  }
  // Reads what is left of the body, so that closing sends no reset.
  void ReadBody(tcp::socket& socket, net::streambuf& buffer, size_t head_size,
                const std::string& head) {
    size_t at = head.find("content-length: ");
    if (at == std::string::npos) return;
    size_t length = std::stoul(head.substr(at + 16));
    size_t have = buffer.size() - head_size;
    boost::system::error_code ec;
    if (length > have) {
      net::read(socket, buffer, net::transfer_exactly(length - have), ec);
    }
  }

  std::string status_line_;
  std::string headers_;
  std::string body_;
  net::io_context io_;
  tcp::acceptor acceptor_;
  std::atomic<bool> stopping_{false};
  std::mutex mutex_;
  std::vector<std::string> heads_;
  std::thread thread_;
};

bool AnyToken(const std::vector<std::string>& heads) {
  for (const auto& head : heads) {
    if (head.find("authorization") != std::string::npos) return true;
  }
  return false;
}

TEST_CASE("CLI: the database's token goes only to its own service",
          "[server][cli][process]") {
  fs::path dir = fs::temp_directory_path() /
                 ("tuner-token-scope-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string db = (dir / "tuner.db").string();
  // As `tuner serve` on 127.0.0.1:1 leaves it: the token and its server.
  std::ofstream(server::TokenPathFor(db))
      << "db-token-0123456789abcdef0123456789abcdef\n";
  chmod(server::TokenPathFor(db).c_str(), 0600);
  REQUIRE(server::BindTokenToServer(db, "127.0.0.1", 1, getpid()).ok());
  std::ofstream(dir / "a.yaml") << ToySweepYaml("scope", 2, 1, 1);

  // Reads need no token: none is sent, even where the server would take it.
  PlainListener reads(200);
  for (std::string verb : {"status", "best x", "trials x", "reports x"}) {
    INFO(verb);
    RunTuner(dir, verb + " --server " + reads.url());
  }
  CHECK(reads.Heads().size() == 4);
  CHECK_FALSE(AnyToken(reads.Heads()));

  // A server that asks for it is not the one the token belongs to.
  PlainListener asks(401);
  std::string server = " --server " + asks.url();
  Output read = RunTuner(dir, "status" + server);
  CHECK(read.code == 2);
  CHECK(read.err.find("tuner: not sending the token of tuner.db.token to "
                      "127.0.0.1:") == 0);
  CHECK(read.err.find("it belongs to the service at 127.0.0.1:1 ") !=
        std::string::npos);
  for (std::string verb : {"submit a.yaml", "stop x", "resume x",
                           "extend x --trials 2", "delete x --yes"}) {
    Output write = RunTuner(dir, verb + server);
    INFO(verb << ": " << write.err);
    CHECK(write.code == 2);
    CHECK(write.err.find("not sending the token") != std::string::npos);
  }
  CHECK_FALSE(AnyToken(asks.Heads()));

  // Without the record of its service, the token goes nowhere.
  fs::remove(server::TokenServerPathFor(db));
  Output unbound = RunTuner(dir, "stop x" + server);
  CHECK(unbound.code == 2);
  CHECK(unbound.err.find("no tuner.db.token.server says which service") !=
        std::string::npos);
  CHECK_FALSE(AnyToken(asks.Heads()));

  // A token the user gives goes where the user's --server says.
  std::ofstream(dir / "given") << "given-token-0123456789abcdef\n";
  RunTuner(dir, "stop x --token-file given" + server);
  CHECK(AnyToken(asks.Heads()));
  fs::remove_all(dir);
}

// Writes `text` to `path` with `mode`, replacing what was there.
void WriteWithMode(const fs::path& path, const std::string& text, mode_t mode) {
  fs::remove(path);
  std::ofstream(path) << text;
  chmod(path.c_str(), mode);
}

// The port of a PlainListener's URL.
std::string PortOf(const PlainListener& listener) {
  std::string url = listener.url();
  return url.substr(url.rfind(':') + 1);
}

TEST_CASE(
    "CLI: the token beside the database is sent only from private files "
    "of this user, never through a symlink",
    "[server][cli][process]") {
  fs::path dir = fs::temp_directory_path() /
                 ("tuner-token-private-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "victim");
  const std::string db = (dir / "tuner.db").string();
  const std::string token = server::TokenPathFor(db);
  const std::string record = server::TokenServerPathFor(db);
  fs::path victim = dir / "victim" / "tuner.db.token";
  WriteWithMode(victim, "victim-token-0123456789abcdef0123456789abcdef\n",
                0600);
  // The listener is this process: the recorded service, when private.
  PlainListener asks(401);
  std::string recorded =
      "127.0.0.1:" + PortOf(asks) + "\n" + std::to_string(getpid()) + "\n";
  std::string server = " --server " + asks.url();

  fs::create_symlink(victim, token);
  WriteWithMode(record, recorded, 0644);
  Output linked = RunTuner(dir, "stop x" + server);
  CHECK(linked.code == 2);
  CHECK(linked.err.find("the token is a symlink") != std::string::npos);
  CHECK(linked.err.find('\n') == linked.err.size() - 1);
  CHECK_FALSE(AnyToken(asks.Heads()));

  fs::remove(token);
  REQUIRE(mkfifo(token.c_str(), 0600) == 0);  // opened, it would block
  Output fifo = RunTuner(dir, "stop x" + server);
  CHECK(fifo.code == 2);
  CHECK(fifo.err.find("the token is not a regular file") != std::string::npos);

  WriteWithMode(token, "db-token-0123456789abcdef0123456789abcdef\n", 0644);
  WriteWithMode(record, recorded, 0600);
  Output shared = RunTuner(dir, "status" + server);
  CHECK(shared.code == 2);
  CHECK(shared.err.find("others may read or write the token") !=
        std::string::npos);
  CHECK_FALSE(AnyToken(asks.Heads()));

  chmod(token.c_str(), 0600);
  WriteWithMode(dir / "record", recorded, 0600);
  fs::remove(record);
  fs::create_symlink(dir / "record", record);
  Output record_linked = RunTuner(dir, "stop x" + server);
  CHECK(record_linked.code == 2);
  CHECK(record_linked.err.find("the token's server record is a symlink") !=
        std::string::npos);
  CHECK_FALSE(AnyToken(asks.Heads()));

  WriteWithMode(record, recorded, 0644);
  Output record_shared = RunTuner(dir, "stop x" + server);
  CHECK(record_shared.code == 2);
  CHECK(record_shared.err.find("others may read or write the token's server "
                               "record") != std::string::npos);
  CHECK_FALSE(AnyToken(asks.Heads()));

  // Both private, and the recorded pid listens there: the token goes.
  chmod(record.c_str(), 0600);
  Output sent = RunTuner(dir, "stop x" + server);
  INFO(sent.err);
  CHECK(AnyToken(asks.Heads()));
  fs::remove_all(dir);
}

TEST_CASE(
    "CLI: the token goes to no process that took its service's port after "
    "the service stopped",
    "[server][cli][process]") {
  fs::path dir = fs::temp_directory_path() /
                 ("tuner-token-stale-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string db = (dir / "tuner.db").string();
  WriteWithMode(server::TokenPathFor(db),
                "db-token-0123456789abcdef0123456789abcdef\n", 0600);
  // The listener is this process, not the recorded service (the parent,
  // which listens on no such port).
  PlainListener taker(401);
  WriteWithMode(
      server::TokenServerPathFor(db),
      "127.0.0.1:" + PortOf(taker) + "\n" + std::to_string(getppid()) + "\n",
      0600);
  std::string server = " --server " + taker.url();
  for (std::string verb : {"status", "stop x"}) {
    Output out = RunTuner(dir, verb + server);
    INFO(verb << ": " << out.err);
    CHECK(out.code == 2);
    CHECK(out.err ==
          "tuner: not sending the token of tuner.db.token to "
          "port " +
              PortOf(taker) +
              ": the service recorded in tuner.db.token.server "
              "(pid " +
              std::to_string(getppid()) +
              ") is gone (start `tuner serve` again, or give "
              "--token-file)\n");
  }
  // A record without a pid (only the address) names no live service.
  WriteWithMode(server::TokenServerPathFor(db),
                "127.0.0.1:" + PortOf(taker) + "\n", 0600);
  Output unrecorded = RunTuner(dir, "stop x" + server);
  CHECK(unrecorded.code == 2);
  CHECK(unrecorded.err.find("is gone") != std::string::npos);
  CHECK_FALSE(AnyToken(taker.Heads()));
  fs::remove_all(dir);
}

TEST_CASE("a process listens on a port when it holds the listening socket",
          "[server][cli]") {
  net::io_context io;
  tcp::acceptor v4(io, tcp::endpoint(net::ip::make_address("127.0.0.1"), 0));
  uint16_t port = v4.local_endpoint().port();
  CHECK(server::ProcessListensOn(getpid(), port));
  CHECK_FALSE(server::ProcessListensOn(getppid(), port));
  CHECK_FALSE(server::ProcessListensOn(0, port));
  boost::system::error_code ec;
  tcp::acceptor v6(io);
  v6.open(tcp::v6(), ec);
  if (!ec) v6.bind(tcp::endpoint(net::ip::make_address("::1"), 0), ec);
  if (!ec) v6.listen(net::socket_base::max_listen_connections, ec);
  if (!ec) {  // IPv6 loopback where the machine has it: /proc/net/tcp6
    CHECK(server::ProcessListensOn(getpid(), v6.local_endpoint().port()));
  }
  v4.close();
  CHECK_FALSE(server::ProcessListensOn(getpid(), port));
}

TEST_CASE("a stopping service removes only its own token record",
          "[server][cli]") {
  fs::path dir = fs::temp_directory_path() /
                 ("tuner-token-unbind-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string db = (dir / "tuner.db").string();
  REQUIRE(server::BindTokenToServer(db, "127.0.0.1", 8080, 4242).ok());
  std::ifstream in(server::TokenServerPathFor(db));
  std::string text((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  CHECK(text == "127.0.0.1:8080\n4242\n");
  server::UnbindTokenFromServer(db, 4243);
  CHECK(fs::exists(server::TokenServerPathFor(db)));
  server::UnbindTokenFromServer(db, 4242);
  CHECK_FALSE(fs::exists(server::TokenServerPathFor(db)));
  fs::remove_all(dir);
}

TEST_CASE("a token goes to its own service, and off this machine on request",
          "[server][cli]") {
  server::ClientToken given{"t", "$TUNER_TOKEN", false, ""};
  server::PeerAddress here{"127.0.0.1", 8080, true};
  server::PeerAddress away{"10.1.2.3", 8080, false};
  CHECK(server::MayCarryToken(given, here, false).ok());
  auto refused = server::MayCarryToken(given, away, false);
  CHECK(refused.message() ==
        "not sending the token to 10.1.2.3:8080 over plain HTTP off this "
        "machine: pass --allow-plain-http, or reach it through an SSH tunnel "
        "to a local port");
  CHECK(server::MayCarryToken(given, away, true).ok());

  server::ClientToken kept{"t", "tuner.db.token", true, "127.0.0.1:8080"};
  CHECK(server::MayCarryToken(kept, here, false).ok());
  CHECK_FALSE(
      server::MayCarryToken(kept, {"127.0.0.1", 8081, true}, false).ok());
  CHECK_FALSE(server::MayCarryToken(kept, away, true).ok());
  kept.bound_to = "0.0.0.0:8080";  // every address of this machine
  CHECK(server::MayCarryToken(kept, {"192.168.1.9", 8080, true}, false).ok());
  CHECK_FALSE(server::MayCarryToken(kept, away, false).ok());
  kept.bound_to = "[::1]:8080";
  CHECK(server::MayCarryToken(kept, {"::1", 8080, true}, false).ok());
  CHECK_FALSE(server::MayCarryToken(kept, here, false).ok());
  kept.bound_to = "";
  CHECK_FALSE(server::MayCarryToken(kept, here, false).ok());
}

TEST_CASE(
    "CLI: an answer that is not the service's names the server, its status "
    "and reason, a redirect is not followed",
    "[server][cli][process]") {
  fs::path dir = fs::temp_directory_path() /
                 ("tuner-plain-answer-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  PlainListener moved("307 Temporary Redirect",
                      "Location: http://127.0.0.1:1/api/experiments\r\n", "");
  std::string authority = moved.url().substr(std::string("http://").size());
  for (std::string verb : {"status", "best x", "stop x"}) {
    Output out = RunTuner(dir, verb + " --server " + moved.url());
    INFO(verb);
    CHECK(out.code == 1);
    CHECK(out.err == "tuner: http://" + authority +
                         " answered 307 Temporary Redirect: the tuner does "
                         "not follow redirects (to "
                         "http://127.0.0.1:1/api/experiments); give --server "
                         "the address of `tuner serve` itself\n");
  }
  PlainListener proxy("502 Bad Gateway", "", "<html>\n<h1>502</h1>\n</html>");
  Output out = RunTuner(dir, "status --server " + proxy.url());
  CHECK(out.code == 1);
  CHECK(out.err == "tuner: " + proxy.url() +
                       " answered 502 Bad Gateway: <html>\\x0a<h1>502</h1>"
                       "\\x0a</html>\n");
  fs::remove_all(dir);
}

TEST_CASE("a --server host is named as the URL wrote it, brackets and all",
          "[server][cli]") {
  // Nothing listens on port 1.
  for (std::string authority : {"[::1]:1", "127.0.0.1:1"}) {
    auto client = server::HttpClient::Connect("http://" + authority);
    REQUIRE_FALSE(client.ok());
    INFO(client.message());
    CHECK(client.message().rfind("cannot connect to http://" + authority + ": ",
                                 0) == 0);
  }
}

TEST_CASE("a --server port out of range is refused before connecting",
          "[server][cli]") {
  for (std::string url :
       {"http://127.0.0.1:70000", "http://127.0.0.1:0",
        "http://127.0.0.1:", "http://127.0.0.1:8o80", "http://127.0.0.1:018951",
        "http://127.0.0.1: 18952", "http://127.0.0.1:+80"}) {
    INFO(url);
    auto client = server::HttpClient::Connect(url);
    REQUIRE_FALSE(client.ok());
    CHECK(client.message() ==
          "--server: expected a port from 1 to 65535 after HOST:, got '" + url +
              "'");
  }
}

TEST_CASE("a --server URL is read whole: host, port, and no path",
          "[server][cli]") {
  auto v6 = server::ParseServerUrl("http://[::1]:8080/");
  REQUIRE(v6.ok());
  CHECK(v6.value().host == "::1");
  CHECK(v6.value().authority == "[::1]:8080");
  auto dotted = server::ParseServerUrl("http://localhost.:9");
  REQUIRE(dotted.ok());
  CHECK(dotted.value().authority == "localhost:9");
  CHECK(server::ParseServerUrl("https://x:80")
            .error()
            .message.starts_with("https is not served"));
  CHECK(
      server::ParseServerUrl("http://u@x:80")
          .error()
          .message.starts_with("expected http://HOST:PORT without user info"));
  CHECK(server::ParseHostPort("http://x:80", "")
            .error()
            .message.starts_with("expected HOST:PORT, not a URL"));
  auto bare = server::ParseServerUrl("http://example.org");
  REQUIRE(bare.ok());
  CHECK(bare.value().authority == "example.org:80");
  for (std::string url :
       {"http://[::1:18960", "http://::1:18960", "http://[zz]:80", "http://",
        "http://:8080", "http://x/y", "http://x:80/api", "http://u@x:80",
        "http://x y:80", "http://x:80?a=1", "https://x:80", "x:80",
        "http://127.1:80", "http://2130706433:80", "http://0:80",
        "http://0x7f.0.0.1:80"}) {
    INFO(url);
    CHECK_FALSE(server::ParseServerUrl(url).ok());
  }
}

TEST_CASE("tuner with a malformed --server refuses it as bad input, exit 2",
          "[server][cli][process]") {
  fs::path dir = fs::temp_directory_path() /
                 ("tuner-server-url-" + std::to_string(getpid()));
  fs::create_directories(dir);
  for (std::string url :
       {"http://[::1:18960", "http://127.0.0.1:018951", "ftp://127.0.0.1:80"}) {
    INFO(url);
    Output out = RunTuner(dir, "status --server '" + url + "'");
    CHECK(out.code == 2);
    CHECK(out.err.starts_with("tuner status: --server: "));
    CHECK(out.err.find("'" + url + "'") != std::string::npos);
  }
  // A trailing slash is the same server: messages name it once.
  Output slash = RunTuner(dir, "status --server http://127.0.0.1:1/");
  CHECK(slash.code == 1);
  CHECK(slash.err.starts_with("tuner: cannot connect to http://127.0.0.1:1: "));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tuner::testing
