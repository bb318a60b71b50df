// Api::Handle on the HTTP thread never parses a submitted config: it hands
// the body to Control::Offload and returns. Driven by hand, no sockets: a
// Control that queues offloaded work until the test runs it.

#include <filesystem>
#include <optional>

#include "tests/catch.h"
#include "tests/server/api_harness.h"
#include "tuner/server/api.h"
#include "tuner/server/store_pool.h"

namespace tuner::server {
namespace {

struct Fixture {
  Fixture() {
    control.queue_offloads = true;
    std::string db = dir.db();
    REQUIRE(storage::TrialStore::Open(db).ok());
    stores.emplace(db);
    Api::Options options;
    options.db_path = db;
    options.token = "offload-token-0123456789abcdef01234567";
    options.default_base_dir = dir.path().string();
    api.emplace(*stores, bus, control, options);
  }
  // Submits `yaml`; the reply lands in `answer` (if it came).
  void Submit(const std::string& yaml) {
    Request request;
    request.method = "POST";
    request.target = "/api/experiments";
    request.body = yaml;
    request.host = "127.0.0.1";
    request.content_type = "application/yaml";
    request.authorization = "Bearer offload-token-0123456789abcdef01234567";
    api->Handle(request, [this](Response r) { answer = std::move(r); });
  }

  testing::ScratchDir dir{"tuner-offload"};
  EventBus bus;
  testing::FakeControl control;
  std::optional<StorePool> stores;
  std::optional<Api> api;
  std::optional<Response> answer;
};

const char* kGood = R"(name: offloaded
command: /bin/true --lr {lr}
metric: score
mode: max
search_space: {lr: {type: loguniform, low: 1.0e-4, high: 1.0e-1}}
num_trials: 2
devices: {kind: cpu, slots: 1}
)";

TEST_CASE("a submitted config is parsed off the HTTP thread", "[server][api]") {
  Fixture f;
  f.Submit(kGood);
  // Handle returned without an answer and without parsing: the work waits
  // in the control's queue.
  CHECK_FALSE(f.answer);
  REQUIRE(f.control.queued.size() == 1);
  CHECK(f.control.submitted.empty());
  f.control.queued.front()();
  REQUIRE(f.answer);
  CHECK(f.answer->status == 201);
  CHECK(f.control.submitted == std::vector<std::string>{"offloaded"});
}

TEST_CASE("a bad config's error comes back from the offloaded parse",
          "[server][api]") {
  Fixture f;
  f.Submit("name: bad\ncommand: x {nosuch}\nnum_trials: 1\n");
  CHECK_FALSE(f.answer);
  REQUIRE(f.control.queued.size() == 1);
  f.control.queued.front()();
  REQUIRE(f.answer);
  CHECK(f.answer->status == 400);
  CHECK(f.control.submitted.empty());
}

TEST_CASE("cheap refusals are answered on the HTTP thread at once",
          "[server][api]") {
  Fixture f;
  f.Submit("");
  REQUIRE(f.answer);
  CHECK(f.answer->status == 400);
  CHECK(f.control.queued.empty());
}

}  // namespace
}  // namespace tuner::server
