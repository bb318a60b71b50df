// Several experiments in one service share the devices by priority.
#include <map>
#include <nlohmann/json.hpp>

#include "tests/fake_machine.h"
#include "tests/server/service_fixture.h"
#include "tuner/device_share.h"

namespace tuner::testing {
namespace {

std::string CardConfig(const std::string& name, double priority, int trials,
                       int sleep_ms) {
  return WithTrainers("name: " + name + R"(
command: DEVTRAINER --lr {lr} --epochs 3 --sleep-ms )" +
                      std::to_string(sleep_ms) + R"(
metric: score
mode: max
time_attr: epoch
search_space: {lr: {type: loguniform, low: 1.0e-4, high: 1.0}}
num_trials: )" + std::to_string(trials) +
                      R"(
scheduler: {type: fifo, max_t: 3}
devices: {kind: habana}
priority: )" + std::to_string(priority) +
                      "\n");
}

struct Span {
  double start = 0;
  double end = 0;
  int devices = 0;
};

std::vector<Span> Leases(
    storage::TrialStore& store, const std::string& name,
    std::map<int, std::vector<std::pair<double, double>>>& by_device) {
  auto e = store.FindExperiment(name);
  REQUIRE(e.ok());
  REQUIRE(e.value());
  auto leases = store.ListLeases(e.value()->id);
  REQUIRE(leases.ok());
  std::vector<Span> out;
  for (const auto& l : leases.value()) {
    REQUIRE(l.released_at);
    auto ids = IdsOf(l.devices);
    for (int id : ids) by_device[id].push_back({l.acquired_at, *l.released_at});
    out.push_back(
        {l.acquired_at, *l.released_at, static_cast<int>(ids.size())});
  }
  return out;
}

double CardSeconds(const std::vector<Span>& spans, double from, double to) {
  double total = 0;
  for (const auto& s : spans) {
    double a = std::max(s.start, from), b = std::min(s.end, to);
    if (b > a) total += (b - a) * s.devices;
  }
  return total;
}

TEST_CASE(
    "Service: two experiments with priorities 1 and 3 on 8 cards get "
    "about 1/4 and 3/4 of the card-time while both run",
    "[server][devices][process]") {
  UseFakeMachine("dl1");
  Service service;
  auto client = service.Client();
  // Trials of 3 x 80 ms; A needs 24 trials, B 72: at 2 and 6 cards both
  // take about 12 rounds.
  REQUIRE(client->Call("POST", "/api/experiments", CardConfig("low", 1, 24, 80))
              .value()
              .status == 201);
  REQUIRE(
      client->Call("POST", "/api/experiments", CardConfig("high", 3, 72, 80))
          .value()
          .status == 201);
  REQUIRE(WaitFor(*client, "/api/experiments/low", "\"finished\"", 120));
  REQUIRE(WaitFor(*client, "/api/experiments/high", "\"finished\"", 120));

  auto store = storage::TrialStore::OpenReadOnly(service.db());
  REQUIRE(store.ok());
  std::map<int, std::vector<std::pair<double, double>>> by_device;
  auto low = Leases(*store.value(), "low", by_device);
  auto high = Leases(*store.value(), "high", by_device);
  REQUIRE(low.size() == 24);
  REQUIRE(high.size() == 72);

  // No card ever held by two trials, whichever experiment they belong to.
  for (auto& [id, spans] : by_device) {
    std::sort(spans.begin(), spans.end());
    for (size_t i = 1; i < spans.size(); ++i) {
      INFO("card " << id);
      CHECK(spans[i].first >= spans[i - 1].second);
    }
  }
  auto first = [](const std::vector<Span>& s) {
    double t = s.front().start;
    for (const auto& x : s) t = std::min(t, x.start);
    return t;
  };
  auto last = [](const std::vector<Span>& s) {
    double t = 0;
    for (const auto& x : s) t = std::max(t, x.end);
    return t;
  };
  double from = std::max(first(low), first(high));
  double to = std::min(last(low), last(high));
  REQUIRE(to > from);
  double a = CardSeconds(low, from, to), b = CardSeconds(high, from, to);
  double share = a / (a + b);
  INFO("low's share " << share << " over " << (to - from) << " s");
  CHECK(share > 0.17);
  CHECK(share < 0.33);
  if (!Sanitized()) {
    // Every card busy while both ran: the share is of the whole machine.
    CHECK((a + b) / (8 * (to - from)) > 0.6);
  }
}

TEST_CASE("Service: a stopped experiment's cards go to the other one at once",
          "[server][devices][process]") {
  UseFakeMachine("dl1");
  Service service;
  auto client = service.Client();
  // Equal priorities. "first" turns its cards over every 120 ms, so the
  // shares settle quickly; "second" holds each card for 3 s, so only the
  // stop can hand it more cards soon.
  REQUIRE(
      client->Call("POST", "/api/experiments", CardConfig("first", 1, 400, 40))
          .value()
          .status == 201);
  REQUIRE(
      client
          ->Call("POST", "/api/experiments", CardConfig("second", 1, 400, 1000))
          .value()
          .status == 201);
  REQUIRE(WaitFor(*client, "/api/experiments/second", "\"held_devices\":4"));
  REQUIRE(client->Call("POST", "/api/experiments/first/stop").value().status ==
          202);
  REQUIRE(WaitFor(*client, "/api/experiments/first", "\"interrupted\""));
  REQUIRE(WaitFor(*client, "/api/experiments/second", "\"held_devices\":8"));
  REQUIRE(client->Call("POST", "/api/experiments/second/stop").value().status ==
          202);
  REQUIRE(WaitFor(*client, "/api/experiments/second", "\"interrupted\""));

  auto store = storage::TrialStore::OpenReadOnly(service.db());
  REQUIRE(store.ok());
  std::map<int, std::vector<std::pair<double, double>>> first_cards,
      second_cards;
  Leases(*store.value(), "first", first_cards);
  Leases(*store.value(), "second", second_cards);
  // Each card "first" held last went to "second" right after its release.
  double stop = 0;
  for (const auto& [card, spans] : first_cards) {
    for (const auto& span : spans) stop = std::max(stop, span.second);
  }
  int handed_over = 0;
  for (const auto& [card, spans] : first_cards) {
    double released = 0;
    for (const auto& span : spans) released = std::max(released, span.second);
    if (released < stop - 1.0) continue;  // not one of its last cards
    double next = 1e300;
    for (const auto& span : second_cards[card]) {
      if (span.first >= released) next = std::min(next, span.first);
    }
    INFO("card " << card);
    CHECK(next - released < (Sanitized() ? 1.0 : 0.3));
    ++handed_over;
  }
  CHECK(handed_over >= 2);
}

TEST_CASE("DeviceShare: grants follow the weights and nobody starves",
          "[server][share]") {
  boost::asio::io_context io;
  DeviceShare share(io);
  // Two claimants that always want one more card; 8 cards in all.
  int held[3] = {0, 0, 0};
  int wakes[3] = {0, 0, 0};
  auto join = [&](int who, double weight) {
    return share.Join({weight, [&held, who] { return held[who]; },
                       [] { return 1; }, [&wakes, who] { ++wakes[who]; }});
  };
  int a = join(1, 1), b = join(2, 3);
  int free_cards = 8;
  // Hand out cards one by one to whoever may take one.
  while (free_cards > 0) {
    bool granted = false;
    for (auto [id, who] : {std::pair{a, 1}, std::pair{b, 2}}) {
      if (free_cards > 0 && share.MayTake(id)) {
        ++held[who];
        --free_cards;
        granted = true;
      }
    }
    REQUIRE(granted);
  }
  CHECK(held[1] == 2);
  CHECK(held[2] == 6);
  // One of b's cards comes back: b (at 5/3) is below a (2/1) and gets it.
  --held[2];
  share.Released(b);
  io.run();
  CHECK(wakes[1] == 1);  // both waiting claimants were woken
  CHECK(share.MayTake(b));
  CHECK_FALSE(share.MayTake(a));
  // A claimant that needs a whole 8-card group and holds none goes first,
  // even though its group does not fit yet: the 1-card ones wait for it.
  int c = share.Join({1, [] { return 0; }, [] { return 8; }, [] {}});
  CHECK_FALSE(share.MayTake(a));
  CHECK_FALSE(share.MayTake(b));
  CHECK(share.MayTake(c));
  share.Leave(c);
  CHECK(share.MayTake(b));
}

}  // namespace
}  // namespace tuner::testing
