// GET /api/trials/{id}/log through Api::Handle, with no sockets and no
// process: it needs the token on any address, sends at most the file's
// last MiB, sanitised, and reaches no file but the trial's own logs.
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>

#include "storage/trial_store.h"
#include "tests/catch.h"
#include "tests/server/api_harness.h"
#include "tuner/server/api.h"
#include "tuner/server/store_pool.h"

namespace tuner::server {
namespace {

namespace fs = std::filesystem;

const char* kToken = "log-test-token-0123456789abcdef";

// Experiment "logs" with trials 1 and 2, whose directories are under
// dir/tuner.db.trials/logs/, beside the database; reads need no token (a
// loopback service).
struct Fixture {
  explicit Fixture(const std::string& name = "logs") {
    std::string db = dir.db();
    auto store = storage::TrialStore::Open(db).value();
    storage::ExperimentRecord e;
    e.name = name;
    e.status = core::ExperimentStatus::kFinished;
    e.metric = "score";
    e.time_attr = "epoch";
    e.config_json = nlohmann::json{{"trials_root", root.string()}}.dump();
    auto id = store->experiments().Create(e).value();
    REQUIRE(store->trials().Add(id, 0, {}).ok());
    REQUIRE(store->trials().Add(id, 1, {}).ok());
    REQUIRE(store->Commit().ok());
    fs::create_directories(root / "1");
    fs::create_directories(root / "2");
    stores.emplace(db);
    Api::Options options;
    options.db_path = db;
    options.token = kToken;
    api.emplace(*stores, bus, control, options);
  }

  Response Get(const std::string& target, const std::string& token = kToken,
               const std::string& scheme = "Bearer ") {
    Request request;
    request.method = "GET";
    request.target = target;
    request.host = "127.0.0.1";
    if (!token.empty()) request.authorization = scheme + token;
    std::optional<Response> answer;
    api->Handle(request, [&answer](Response r) { answer = std::move(r); });
    REQUIRE(answer);
    return *answer;
  }

  void Write(const fs::path& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
  }

  testing::ScratchDir dir{"tuner-api-log"};
  fs::path root = dir.path() / "tuner.db.trials" / "logs";
  EventBus bus;
  testing::FakeControl control;
  std::optional<StorePool> stores;
  std::optional<Api> api;
};

TEST_CASE("a trial's log needs the token, even where reads do not",
          "[server][api][log]") {
  Fixture f;
  f.Write(f.root / "1" / "stdout.log", "epoch 1\nepoch 2\n");
  Response none = f.Get("/api/trials/1/log", "");
  CHECK(none.status == 401);
  CHECK(nlohmann::json::parse(none.body)["error"].get<std::string>().find(
            "needs the token") != std::string::npos);
  CHECK(f.Get("/api/trials/1/log", "wrong").status == 401);
  CHECK(f.Get("/api/trials/1/log?token=wrong", "").status == 401);
  // Other reads stay open on loopback.
  CHECK(f.Get("/api/trials/1", "").status == 200);
  Response tail = f.Get("/api/trials/1/log?tail=1");
  CHECK(tail.status == 200);
  CHECK(tail.body == "epoch 2\n");
  CHECK(
      f.Get(std::string("/api/trials/1/log?tail=1&token=") + kToken, "").body ==
      "epoch 2\n");
}

TEST_CASE("the token's scheme is read in any case, and only Bearer",
          "[server][api][log]") {
  Fixture f;
  f.Write(f.root / "1" / "stdout.log", "epoch 1\n");
  for (std::string scheme : {"Bearer ", "bearer ", "BEARER ", "bEaReR "}) {
    INFO(scheme);
    CHECK(f.Get("/api/trials/1/log", kToken, scheme).status == 200);
  }
  for (std::string scheme : {"Basic ", "Bearer", "Bearer  ", "Bear ", ""}) {
    INFO(scheme);
    CHECK(f.Get("/api/trials/1/log", kToken, scheme).status == 401);
  }
}

TEST_CASE("a trial's log comes back bounded and sanitised",
          "[server][api][log]") {
  Fixture f;
  // 3 MiB of lines, then a last line with an escape sequence, a C1
  // control and a byte that is not UTF-8.
  std::string big;
  while (big.size() < (3u << 20)) big += std::string(99, 'x') + "\n";
  f.Write(f.root / "1" / "stdout.log", big +
                                           "clear\x1b[2J \xC2\x9B"
                                           "31m bad \xFF end\n");
  Response tail = f.Get("/api/trials/1/log?tail=10000");
  REQUIRE(tail.status == 200);
  CHECK(tail.body.size() <= (1u << 20) + 16);
  CHECK(tail.body.find('\x1b') == std::string::npos);
  const std::string fffd = "\xEF\xBF\xBD";
  CHECK(tail.body.find("clear" + fffd + "[2J " + fffd + "31m bad " + fffd +
                       " end\n") != std::string::npos);
  Response last = f.Get("/api/trials/1/log?tail=1");
  CHECK(last.body.rfind("clear", 0) == 0);
}

TEST_CASE("no log is read through an experiment name that is no path part",
          "[server][api][log]") {
  // What a crafted row's name would reach from <db>.trials/NAME/1/.
  for (auto [name, reached] :
       {std::pair<std::string, std::string>{"../x", "x/1"}, {"..", "1"}}) {
    INFO(name);
    Fixture f(name);
    fs::create_directories(f.dir.path() / reached);
    f.Write(f.dir.path() / reached / "stdout.log", "planted\n");
    Response log = f.Get("/api/trials/1/log");
    CHECK(log.status == 404);
    CHECK(log.body.find("planted") == std::string::npos);
    CHECK(log.body.find("is not a safe path component") != std::string::npos);
  }
}

TEST_CASE("a trial's log request reaches only that trial's own files",
          "[server][api][log]") {
  Fixture f;
  f.Write(f.dir.path() / "secret.txt", "secret\n");
  CHECK(f.Get("/api/trials/1/log?stream=../../secret.txt").status == 400);
  CHECK(f.Get("/api/trials/1/log?stream=stdout%2F..").status == 400);
  CHECK(f.Get("/api/trials/..%2F1/log").status == 400);
  CHECK(f.Get("/api/trials/1%2F..%2F..%2Fsecret.txt/log").status == 400);
  // A log or a trial directory replaced by a link is not followed.
  fs::create_symlink(f.dir.path() / "secret.txt", f.root / "1" / "stdout.log");
  Response linked = f.Get("/api/trials/1/log");
  CHECK(linked.status == 404);
  CHECK(linked.body.find("secret") == std::string::npos);
  fs::remove_all(f.root / "2");
  fs::create_symlink(f.dir.path(), f.root / "2");
  f.Write(f.dir.path() / "stdout.log", "secret\n");
  Response dir_link = f.Get("/api/trials/2/log");
  CHECK(dir_link.status == 404);
  CHECK(dir_link.body.find("secret") == std::string::npos);
  CHECK(f.Get("/api/trials/9/log").status == 404);  // no such trial
}

TEST_CASE("a trial's log is never read through a linked experiment folder",
          "[server][api][log]") {
  Fixture f;
  fs::path elsewhere = f.dir.path() / "elsewhere";
  fs::create_directories(elsewhere / "1");
  f.Write(elsewhere / "1" / "stdout.log", "secret\n");
  fs::remove_all(f.root);
  fs::create_directory_symlink(elsewhere, f.root);
  Response linked = f.Get("/api/trials/1/log");
  CHECK(linked.status == 404);
  CHECK(linked.body.find("secret") == std::string::npos);
}

}  // namespace
}  // namespace tuner::server
