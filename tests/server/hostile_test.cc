// Hostile clients against a real `tuner serve` process: cross-site pages,
// DNS rebinding, no token, hundreds of idle or slow connections, malformed
// HTTP and hostile YAML. The service must refuse each with a 4xx, keep
// answering /healthz, run a small sweep to its end and leave an intact
// database. Nothing here waits on a clock; every wait is for a condition.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/catch.h"
#include "tests/server/service_fixture.h"
#include "tests/support/tuner_cli.h"
#include "tests/support/wait_for.h"

namespace tuner::testing {
namespace {

namespace fs = std::filesystem;

// A `tuner serve` child process on a free loopback port.
class ServeProcess {
 public:
  // `listen` is --listen's value; `extra` more arguments of `tuner serve`.
  explicit ServeProcess(const fs::path& dir,
                        const std::string& listen = "127.0.0.1:0",
                        std::vector<std::string> extra = {})
      : dir_(dir) {
    std::vector<std::string> args = {TUNER_BINARY, "serve", "--listen",
                                     listen,       "--db",  "tuner.db",
                                     "--no-resume"};
    args.insert(args.end(), extra.begin(), extra.end());
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    std::string out = (dir_ / "serve.out").string();
    pid_ = fork();
    if (pid_ == 0) {
      int fd = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      dup2(fd, 1);
      dup2(fd, 2);
      if (chdir(dir_.c_str()) != 0) _exit(127);
      execv(TUNER_BINARY, argv.data());
      _exit(127);
    }
    REQUIRE(pid_ > 0);
    REQUIRE(WaitFor(
        "the line with the dashboard's URL in " + out, std::chrono::seconds(60),
        [&] {
          std::ifstream in(out);
          std::string line;
          while (std::getline(in, line)) {
            if (line.rfind("listening on ", 0) == 0) url_ = line.substr(13);
            size_t at = line.find("/?token=");
            if (line.rfind("dashboard: ", 0) == 0 && at != std::string::npos) {
              token_ = line.substr(at + 8);
            }
          }
          return !token_.empty();
        },
        std::chrono::milliseconds(20)));
    REQUIRE(!url_.empty());
    REQUIRE(!token_.empty());
    port_ = std::stoi(url_.substr(url_.rfind(':') + 1));
  }

  ~ServeProcess() {
    if (pid_ <= 0) return;
    kill(pid_, SIGTERM);
    int status = 0;
    waitpid(pid_, &status, 0);
  }

  // Stops it with SIGTERM and returns its exit status.
  int Stop() {
    kill(pid_, SIGTERM);
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

  const std::string& url() const { return url_; }
  const std::string& token() const { return token_; }
  int port() const { return port_; }
  fs::path db() const { return dir_ / "tuner.db"; }
  const fs::path& dir() const { return dir_; }

 private:
  fs::path dir_;
  pid_t pid_ = -1;
  std::string url_;
  std::string token_;
  int port_ = 0;
};

int Connect(int port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    close(fd);
    return -1;
  }
  timeval timeout{60, 0};  // never hang a test on a server that stalls
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  return fd;
}

// Sends `bytes` on a fresh connection and returns all the server answers
// until it closes (or the headers, for an event stream).
std::string Raw(int port, const std::string& bytes, bool headers_only = false) {
  int fd = Connect(port);
  if (fd < 0) return "";
  size_t sent = 0;
  while (sent < bytes.size()) {
    ssize_t n =
        send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;  // the server may refuse before it read everything
    sent += static_cast<size_t>(n);
  }
  std::string out;
  char buffer[4096];
  for (;;) {
    ssize_t n = recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0) break;
    out.append(buffer, static_cast<size_t>(n));
    if (headers_only && out.find("\r\n\r\n") != std::string::npos) break;
  }
  close(fd);
  return out;
}

// The status code of a raw answer; 0 when there is none.
int StatusOf(const std::string& answer) {
  if (answer.rfind("HTTP/1.1 ", 0) != 0 || answer.size() < 12) return 0;
  return std::stoi(answer.substr(9, 3));
}

// A request: method, target, headers (each "Name: value"), body.
std::string Request(const std::string& method, const std::string& target,
                    const std::vector<std::string>& headers,
                    const std::string& body = "") {
  std::string text = method + " " + target + " HTTP/1.1\r\n";
  for (const auto& h : headers) text += h + "\r\n";
  text +=
      "Connection: close\r\nContent-Length: " + std::to_string(body.size()) +
      "\r\n\r\n" + body;
  return text;
}

Waited WaitForStatus(server::HttpClient& client, const std::string& name,
                     const std::string& status) {
  return WaitForBody(client, "/api/experiments/" + name,
                     "\"status\":\"" + status + "\"", 60);
}

std::string IntegrityCheck(const fs::path& db) {
  sqlite3* handle = nullptr;
  std::string result = "cannot open";
  if (sqlite3_open_v2(db.c_str(), &handle, SQLITE_OPEN_READONLY, nullptr) ==
      SQLITE_OK) {
    sqlite3_stmt* stmt = nullptr;
    sqlite3_prepare_v2(handle, "PRAGMA integrity_check", -1, &stmt, nullptr);
    if (stmt && sqlite3_step(stmt) == SQLITE_ROW) {
      result = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
    }
    sqlite3_finalize(stmt);
  }
  sqlite3_close(handle);
  return result;
}

fs::path TestDir(const std::string& name) {
  return fs::temp_directory_path() /
         ("tuner-hostile-" + name + "-" + std::to_string(getpid()));
}

TEST_CASE("Hostile: the token is made once, kept 0600, found by the CLI",
          "[server][hostile][process]") {
  ServeProcess serve(TestDir("token"));
  fs::path token_file = serve.dir() / "tuner.db.token";
  struct stat st {};
  REQUIRE(lstat(token_file.c_str(), &st) == 0);
  CHECK(S_ISREG(st.st_mode));
  CHECK((st.st_mode & 0777) == 0600);
  CHECK(serve.token().size() >= 32);
  std::string stored;
  std::getline(std::ifstream(token_file), stored);
  CHECK(stored == serve.token());

  // The CLI finds it beside --db; without it, it is refused.
  std::ofstream(serve.dir() / "a.yaml") << ToySweepYaml("cli-a", 2, 1, 1);
  Output found = RunTuner(
      serve.dir(), "submit a.yaml --db tuner.db --server " + serve.url());
  INFO(found.err);
  CHECK(found.code == 0);
  Output refused = RunTuner(serve.dir(),
                            "submit a.yaml --db elsewhere.db "
                            "--server " +
                                serve.url());
  CHECK(refused.code == 1);
  CHECK(refused.err.find("needs a token") != std::string::npos);
  CHECK(serve.Stop() == 0);

  // A token file that others may read is refused, as is a symlink.
  chmod(token_file.c_str(), 0644);
  Output loose = RunTuner(serve.dir(), "serve --listen 127.0.0.1:0");
  CHECK(loose.code == 2);
  CHECK(loose.err.find("others may read") != std::string::npos);
  fs::remove(token_file);
  fs::create_symlink(serve.dir() / "a.yaml", token_file);
  Output link = RunTuner(serve.dir(), "serve --listen 127.0.0.1:0");
  CHECK(link.code == 2);
  CHECK(link.err.find("symlink") != std::string::npos);
}

TEST_CASE("tuner serve --listen takes a host name: localhost is loopback",
          "[server][hostile][process]") {
  ServeProcess serve(TestDir("localhost"), "localhost:0");
  CHECK(serve.url() == "http://localhost:" + std::to_string(serve.port()));
  // Connect() reaches 127.0.0.1: the name resolved to IPv4 loopback, where
  // reads need no token.
  auto get = [&](const std::string& host) {
    return StatusOf(Raw(serve.port(),
                        Request("GET", "/api/experiments", {"Host: " + host})));
  };
  CHECK(get("localhost:" + std::to_string(serve.port())) == 200);
  CHECK(get("127.0.0.1") == 200);
  CHECK(get("other.example") == 403);
}

TEST_CASE(
    "Hostile: off loopback, reads need the token, and --allow-host names pass",
    "[server][hostile][process]") {
  ServeProcess serve(TestDir("open"), "0.0.0.0:0",
                     {"--allow-host", "Tuner.Example"});
  const int port = serve.port();
  const std::string host = "Host: 127.0.0.1:" + std::to_string(port);
  const std::string auth = "Authorization: Bearer " + serve.token();
  auto get = [&](const std::string& target,
                 const std::vector<std::string>& headers) {
    return StatusOf(Raw(port, Request("GET", target, headers)));
  };
  CHECK(get("/api/experiments", {host}) == 401);
  CHECK(get("/api/experiments", {host, "Authorization: Bearer wrong"}) == 401);
  CHECK(get("/api/experiments", {host, auth}) == 200);
  CHECK(get("/api/experiments?token=" + serve.token(), {host}) == 200);
  CHECK(get("/metrics", {host}) == 401);
  // The dashboard's files and /healthz hold no data.
  CHECK(get("/", {host}) == 200);
  CHECK(get("/healthz", {host}) == 200);
  // Bound to 0.0.0.0: IP literals, localhost and the allowed name.
  CHECK(get("/healthz", {"Host: 10.1.2.3:" + std::to_string(port)}) == 200);
  CHECK(get("/healthz", {"Host: localhost"}) == 200);
  CHECK(get("/api/experiments", {"Host: tuner.example:80", auth}) == 200);
  CHECK(get("/healthz", {"Host: other.example"}) == 403);
  CHECK(get("/healthz", {}) == 403);
  // A query token never carries a mutation.
  CHECK(StatusOf(Raw(
            port,
            Request("POST", "/api/experiments/x/stop?token=" + serve.token(),
                    {host, "Content-Type: application/json"}))) == 401);
}

TEST_CASE(
    "Hostile: cross-site pages, rebinding, no token and hostile input are "
    "refused while 600 idle connections stay and a sweep completes",
    "[server][hostile][process]") {
  ServeProcess serve(TestDir("main"));
  const int port = serve.port();
  const std::string host = "Host: 127.0.0.1:" + std::to_string(port);
  const std::string auth = "Authorization: Bearer " + serve.token();
  const std::string yaml = ToySweepYaml("evil", 1, 1, 1);

  SECTION("what a web page can send is refused") {
    // A form post from another site: text/plain, a foreign Origin and Host.
    CHECK(StatusOf(Raw(port, Request("POST", "/api/experiments",
                                     {"Host: rebind.evil.example:" +
                                          std::to_string(port),
                                      "Origin: https://evil.example",
                                      "Content-Type: text/plain"},
                                     yaml))) == 403);
    // DNS rebinding: a read with a foreign Host.
    CHECK(StatusOf(Raw(port, Request("GET", "/api/experiments",
                                     {"Host: rebind.evil.example"}))) == 403);
    // A foreign Origin, even with the token and a JSON type.
    CHECK(
        StatusOf(Raw(port, Request("POST", "/api/experiments",
                                   {host, auth, "Origin: https://evil.example",
                                    "Content-Type: application/yaml"},
                                   yaml))) == 403);
    // What forms and no-cors fetches can send.
    for (std::string type : {"text/plain", "application/x-www-form-urlencoded",
                             "multipart/form-data; boundary=x", ""}) {
      INFO(type);
      std::vector<std::string> headers = {host, auth};
      if (!type.empty()) headers.push_back("Content-Type: " + type);
      CHECK(StatusOf(Raw(port, Request("POST", "/api/experiments", headers,
                                       yaml))) == 415);
    }
    // No token, a wrong one.
    CHECK(StatusOf(Raw(port, Request("POST", "/api/experiments",
                                     {host, "Content-Type: application/yaml"},
                                     yaml))) == 401);
    CHECK(StatusOf(Raw(port, Request("POST", "/api/experiments/evil/stop",
                                     {host, "Authorization: Bearer nope",
                                      "Content-Type: application/json"}))) ==
          401);
    // Our own origin with the token is fine.
    CHECK(StatusOf(Raw(
              port, Request("POST", "/api/experiments",
                            {host, auth,
                             "Origin: http://127.0.0.1:" + std::to_string(port),
                             "Content-Type: application/yaml"},
                            yaml))) == 201);
  }

  SECTION("malformed HTTP and hostile YAML get a 4xx") {
    std::string huge = Request("GET", "/healthz",
                               {host, "X-Big: " + std::string(100000, 'a')});
    CHECK(StatusOf(Raw(port, huge)) == 431);
    std::string chunked =
        "POST /api/experiments HTTP/1.1\r\n" + host + "\r\n" + auth +
        "\r\nContent-Type: application/yaml\r\nTransfer-Encoding: "
        "chunked\r\nConnection: close\r\n\r\nzz\r\nhello\r\n0\r\n\r\n";
    int bad_chunks = StatusOf(Raw(port, chunked));
    CHECK(bad_chunks >= 400);
    CHECK(bad_chunks < 500);
    CHECK(StatusOf(Raw(port, "NOT HTTP AT ALL\r\n\r\n")) == 400);
    auto post = [&](const std::string& body, const std::string& type) {
      return StatusOf(
          Raw(port, Request("POST", "/api/experiments",
                            {host, auth, "Content-Type: " + type}, body)));
    };
    CHECK(post("{\"name\": \"x\", \"command\": ", "application/json") == 400);
    CHECK(post("name: [unclosed\n  - : :", "application/yaml") == 400);
    // A billion laughs: aliases that would expand to 10^9 nodes.
    std::string bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
    for (char c = 'b'; c <= 'j'; ++c) {
      std::string prev(1, static_cast<char>(c - 1));
      bomb += std::string(1, c) + ": &" + c + " [*" + prev + ", *" + prev +
              ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev +
              ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + "]\n";
    }
    CHECK(post(bomb, "application/yaml") == 400);
    CHECK(post(WithTrainers(yaml + "search_space: *j\n"), "application/yaml") ==
          400);
    // Deep nesting, in JSON and YAML flow style.
    CHECK(post(std::string(100000, '[') + std::string(100000, ']'),
               "application/json") == 400);
    CHECK(post("name: " + std::string(100000, '{'), "application/yaml") == 400);
  }

  SECTION("600 idle or slow connections lock nobody out") {
    std::vector<int> idle;
    for (int i = 0; i < 600; ++i) {
      int fd = Connect(port);
      REQUIRE(fd >= 0);
      if (i % 2 == 1) {  // half of them send half a request, then stall
        std::string part = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-";
        send(fd, part.data(), part.size(), MSG_NOSIGNAL);
      }
      idle.push_back(fd);
    }
    auto client = server::HttpClient::Connect(serve.url(), serve.token());
    REQUIRE(client.ok());
    auto health = client.value()->Call("GET", "/healthz");
    REQUIRE(health.ok());
    CHECK(health.value().status == 200);
    // Event streams: at most 8 per client address.
    std::vector<int> streams;
    std::string events = Request("GET", "/api/events", {host});
    for (int i = 0; i < 8; ++i) {
      int fd = Connect(port);
      send(fd, events.data(), events.size(), MSG_NOSIGNAL);
      char buffer[256];
      REQUIRE(recv(fd, buffer, sizeof buffer, 0) > 0);
      streams.push_back(fd);
    }
    CHECK(StatusOf(Raw(port, events, true)) == 429);
    // A small sweep runs to its end meanwhile.
    auto submitted = client.value()->Call("POST", "/api/experiments",
                                          ToySweepYaml("calm", 2, 1, 2));
    REQUIRE(submitted.ok());
    CHECK(submitted.value().status == 201);
    CHECK(WaitForStatus(*client.value(), "calm", "finished"));
    CHECK(client.value()->Call("GET", "/healthz").value().status == 200);
    for (int fd : idle) close(fd);
    for (int fd : streams) close(fd);
  }

  auto client = server::HttpClient::Connect(serve.url(), serve.token());
  REQUIRE(client.ok());
  CHECK(client.value()->Call("GET", "/healthz").value().status == 200);
  CHECK(serve.Stop() == 0);
  CHECK(IntegrityCheck(serve.db()) == "ok");
}

}  // namespace
}  // namespace tuner::testing
