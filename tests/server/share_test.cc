// Several experiments in one service share the devices by priority.
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "tests/server/service_fixture.h"
#include "tests/support/fake_machine.h"
#include "tuner/sweep/device_share.h"

namespace tuner::testing {
namespace {

// `trials` trials of 3 epochs of `sleep_ms` on `per_trial` fake Gaudi
// cards. With a `gate`, each trial waits for that file before it trains.
std::string CardConfig(const std::string& name, double priority, int trials,
                       int sleep_ms, const std::string& gate = "",
                       int per_trial = 1, const std::string& extra = "") {
  std::string train =
      "DEVTRAINER --lr {lr} --epochs 3 --sleep-ms " + std::to_string(sleep_ms);
  std::string command =
      gate.empty() ? "command: " + train + "\n"
                   : "shell: true\ncommand: while [ ! -e " + gate +
                         " ]; do sleep 0.02; done; exec " + train + "\n";
  return WithTrainers("name: " + name + "\n" + command + R"(metric: score
mode: max
time_attr: epoch
search_space: {lr: {type: loguniform, low: 1.0e-4, high: 1.0}}
num_trials: )" + std::to_string(trials) +
                      R"(
scheduler: {type: fifo, max_t: 3}
devices: {kind: habana, per_trial: )" +
                      std::to_string(per_trial) + "}\npriority: " +
                      std::to_string(priority) + "\n" + extra);
}

void Touch(const std::filesystem::path& path) {
  std::ofstream(path.string()) << "open\n";
}

struct Span {
  double start = 0;
  double end = 0;
  int devices = 0;
};

std::vector<Span> Leases(
    storage::TrialStore& store, const std::string& name,
    std::map<int, std::vector<std::pair<double, double>>>& by_device) {
  auto e = store.experiments().Find(name);
  REQUIRE(e.ok());
  REQUIRE(e.value());
  auto leases = store.leases().List(e.value()->id);
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
  // take about 12 rounds. Every trial waits for the gate, so both
  // experiments want cards before any card comes free: "high" (submitted
  // first) holds all 8, "low" waits; from the first card "high" gives back
  // to the last trial of either, both run, however loaded the machine.
  std::string gate = (service.dir() / "gate").string();
  REQUIRE(client
              ->Call("POST", "/api/experiments",
                     CardConfig("high", 3, 72, 80, gate))
              .value()
              .status == 201);
  REQUIRE(WaitForBody(*client, "/api/experiments/high", "\"held_devices\":8"));
  REQUIRE(
      client
          ->Call("POST", "/api/experiments", CardConfig("low", 1, 24, 80, gate))
          .value()
          .status == 201);
  Touch(gate);
  REQUIRE(WaitForBody(*client, "/api/experiments/low", "\"finished\"", 120));
  REQUIRE(WaitForBody(*client, "/api/experiments/high", "\"finished\"", 120));

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
  REQUIRE(first(low) >= first(high));  // "low" waited for a card of "high"
  REQUIRE(to > from);
  double a = CardSeconds(low, from, to), b = CardSeconds(high, from, to);
  double share = a / (a + b);
  INFO("low's share " << share << " over " << (to - from) << " s");
  CHECK(share > 0.17);
  CHECK(share < 0.33);
}

TEST_CASE("Service: a stopped experiment's cards go to the other one at once",
          "[server][devices][process]") {
  UseFakeMachine("dl1");
  Service service;
  auto client = service.Client();
  // Equal priorities. "first" turns its cards over every 120 ms, so the
  // shares settle quickly; "second"'s trials hold their cards until the
  // gate opens, so only the stop of "first" can hand it more.
  std::string gate = (service.dir() / "gate").string();
  REQUIRE(
      client->Call("POST", "/api/experiments", CardConfig("first", 1, 400, 40))
          .value()
          .status == 201);
  REQUIRE(client
              ->Call("POST", "/api/experiments",
                     CardConfig("second", 1, 400, 10, gate))
              .value()
              .status == 201);
  REQUIRE(
      WaitForBody(*client, "/api/experiments/second", "\"held_devices\":4"));
  REQUIRE(client->Call("POST", "/api/experiments/first/stop").value().status ==
          202);
  REQUIRE(WaitForBody(*client, "/api/experiments/first", "\"interrupted\""));
  REQUIRE(
      WaitForBody(*client, "/api/experiments/second", "\"held_devices\":8"));
  Touch(gate);
  REQUIRE(client->Call("POST", "/api/experiments/second/stop").value().status ==
          202);
  REQUIRE(WaitForBody(*client, "/api/experiments/second", "\"interrupted\""));

  auto store = storage::TrialStore::OpenReadOnly(service.db());
  REQUIRE(store.ok());
  std::map<int, std::vector<std::pair<double, double>>> first_cards,
      second_cards;
  Leases(*store.value(), "first", first_cards);
  Leases(*store.value(), "second", second_cards);
  // Every card "first" held went to "second" after its last release, and
  // "second" held all 8 at once before any trial of its own ended (they all
  // waited for the gate).
  std::map<int, double> last_release;
  for (const auto& [card, spans] : first_cards)
    for (const auto& span : spans)
      last_release[card] = std::max(last_release[card], span.second);
  double stop = 0;
  for (const auto& [card, t] : last_release) stop = std::max(stop, t);
  int handed_over = 0;
  for (const auto& [card, released] : last_release) {
    bool taken_after = false;
    for (const auto& span : second_cards[card])
      taken_after |= span.first >= released;
    handed_over += taken_after;
  }
  REQUIRE(last_release.size() >= 4);
  CHECK(handed_over == static_cast<int>(last_release.size()));
  double first_end_of_second = 1e300;
  for (const auto& [card, spans] : second_cards)
    for (const auto& span : spans)
      first_end_of_second = std::min(first_end_of_second, span.second);
  CHECK(first_end_of_second > stop);
}

std::vector<std::string> Statuses(storage::TrialStore& store,
                                  const std::string& name) {
  auto e = store.experiments().Find(name);
  REQUIRE(e.ok());
  REQUIRE(e.value());
  auto trials = store.trials().List(e.value()->id);
  REQUIRE(trials.ok());
  std::vector<std::string> out;
  for (const auto& t : trials.value())
    out.push_back(std::string(core::ToString(t.status)));
  return out;
}

TEST_CASE(
    "Service: an experiment whose trials wait for a retry and one with "
    "another grouping both run to their end",
    "[server][devices][process]") {
  UseFakeMachine("dl1");
  Service service;
  auto client = service.Client();
  // "groups" runs 4-card trials whose first attempt fails (retried once);
  // "singles" runs 1-card trials of the same priority. "singles" holds all
  // 8 cards (its trials wait for the gate) when "groups" comes, so both
  // want cards, and "groups" has retries pending, while both run.
  std::string gate = (service.dir() / "gate").string();
  REQUIRE(client
              ->Call("POST", "/api/experiments",
                     CardConfig("singles", 1, 24, 30, gate))
              .value()
              .status == 201);
  REQUIRE(
      WaitForBody(*client, "/api/experiments/singles", "\"held_devices\":8"));
  std::string retrying = WithTrainers(R"(name: groups
shell: true
command: if [ -e {trial_dir}/failed ]; then exec DEVTRAINER --lr {lr} --epochs 3 --sleep-ms 30; else touch {trial_dir}/failed; exit 3; fi
metric: score
mode: max
time_attr: epoch
search_space: {lr: {type: loguniform, low: 1.0e-4, high: 1.0}}
num_trials: 6
scheduler: {type: fifo, max_t: 3}
devices: {kind: habana, per_trial: 4}
trial: {max_failures: 1}
)");
  REQUIRE(client->Call("POST", "/api/experiments", retrying).value().status ==
          201);
  Touch(gate);
  CHECK(WaitForBody(*client, "/api/experiments/groups", "\"finished\"", 90));
  CHECK(WaitForBody(*client, "/api/experiments/singles", "\"finished\"", 90));
  auto store = storage::TrialStore::OpenReadOnly(service.db());
  REQUIRE(store.ok());
  CHECK(Statuses(*store.value(), "groups") ==
        std::vector<std::string>(6, "completed"));
  CHECK(Statuses(*store.value(), "singles") ==
        std::vector<std::string>(24, "completed"));
}

TEST_CASE(
    "Service: an experiment with preempt: true takes cards from one of "
    "lower priority, whose trials are queued again and complete",
    "[server][devices][process]") {
  UseFakeMachine("dl1");
  Service service;
  auto client = service.Client();
  // "low" holds all 8 cards with trials that wait for a gate that opens
  // only once "high" has finished: "high" can only run by preemption.
  std::string gate = (service.dir() / "gate").string();
  REQUIRE(
      client
          ->Call("POST", "/api/experiments", CardConfig("low", 1, 8, 20, gate))
          .value()
          .status == 201);
  REQUIRE(WaitForBody(*client, "/api/experiments/low", "\"held_devices\":8"));
  REQUIRE(client
              ->Call("POST", "/api/experiments",
                     CardConfig("high", 4, 4, 20, "", 2, "preempt: true\n"))
              .value()
              .status == 201);
  REQUIRE(WaitForBody(*client, "/api/experiments/high", "\"finished\"", 60));
  Touch(gate);
  REQUIRE(WaitForBody(*client, "/api/experiments/low", "\"finished\"", 60));

  auto store = storage::TrialStore::OpenReadOnly(service.db());
  REQUIRE(store.ok());
  CHECK(Statuses(*store.value(), "high") ==
        std::vector<std::string>(4, "completed"));
  // Preempted trials are neither failed nor stopped: they ran again.
  CHECK(Statuses(*store.value(), "low") ==
        std::vector<std::string>(8, "completed"));
  std::map<int, std::vector<std::pair<double, double>>> by_device;
  auto low = Leases(*store.value(), "low", by_device);
  auto high = Leases(*store.value(), "high", by_device);
  CHECK(low.size() > 8);
  // "high" never took more than its share plus a group: at most 6 cards
  // at once (6/4 per unit of priority against low's 2/1).
  for (const auto& span : high) {
    int at_once = 0;
    for (const auto& other : high) {
      if (other.start <= span.start && span.start < other.end)
        at_once += other.devices;
    }
    CHECK(at_once <= 6);
  }
  for (auto& [id, spans] : by_device) {
    std::sort(spans.begin(), spans.end());
    for (size_t i = 1; i < spans.size(); ++i) {
      INFO("card " << id);
      CHECK(spans[i].first >= spans[i - 1].second);
    }
  }
}

}  // namespace
}  // namespace tuner::testing
