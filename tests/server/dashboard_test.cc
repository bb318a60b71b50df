// The dashboard in a real browser (Debian's headless Chromium through
// ChromeDriver) while two experiments run on a fake DL1: the curves, the
// rungs, the greyed stopped trials and the device timeline are in the DOM,
// the page follows the sweep live, and screenshots are saved as artifacts
// (build/test-artifacts/).
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "storage/trial_store.h"
#include "tests/catch.h"
#include "tests/failed_experiment.h"
#include "tests/fake_machine.h"
#include "tests/server/service_fixture.h"
#include "tests/server/webdriver.h"

namespace tuner::testing {
namespace {

using nlohmann::json;

// Trials hold after epoch 2 until `gate` exists, so the page is read while
// the sweep runs however slow the machine is: rung decisions at 1 and 2 are
// made, some trials stopped, and the rest wait for the test to open the gate.
// Held trials keep their cards (no preemption), so the first experiment
// gets cards 0-3 only: the second, submitted after it (seconds later on a
// loaded machine), can hold cards too.
std::string SweepYaml(const std::string& name, double priority,
                      const std::filesystem::path& gate,
                      const std::string& devices = "") {
  return WithTrainers("name: " + name + R"(
command: TOY --lr {lr} --epochs 6 --sleep-ms 50 --hold-at 2 --gate )" +
                      gate.string() + R"(
metric: score
mode: max
time_attr: epoch
search_space:
  lr: {type: loguniform, low: 1.0e-5, high: 1.0}
  batch: {type: choice, values: [16, 32, 64]}
num_trials: 32
scheduler: {type: asha, max_t: 6, grace_period: 1, reduction_factor: 2}
devices: {kind: habana)" +
                      devices + R"(}
priority: )" + std::to_string(priority) +
                      "\n");
}

json Get(server::HttpClient& client, const std::string& target) {
  auto r = client.Call("GET", target);
  REQUIRE(r.ok());
  REQUIRE(r.value().status == 200);
  return json::parse(r.value().body);
}

// What the page should show of an experiment, from the API.
struct Expected {
  size_t curves = 0;       // trials with at least one report
  size_t milestones = 0;   // distinct rungs with a decision
  size_t lease_rects = 0;  // one per device of each lease
  std::string lanes;       // "card 0,card 1,..." for the cards it used
};

Expected ExpectedOf(server::HttpClient& client, const std::string& name) {
  json curves = Get(client, "/api/experiments/" + name + "/curves");
  json leases = Get(client, "/api/experiments/" + name + "/leases");
  Expected e;
  for (const auto& t : curves["trials"]) e.curves += !t["points"].empty();
  std::set<double> milestones;
  for (const auto& d : curves["decisions"])
    milestones.insert(d["milestone"].get<double>());
  e.milestones = milestones.size();
  std::set<int> cards;
  for (const auto& l : leases) {
    auto ids = IdsOf(l["devices"].get<std::string>());
    e.lease_rects += ids.size();
    cards.insert(ids.begin(), ids.end());
  }
  for (int card : cards)
    e.lanes += (e.lanes.empty() ? "card " : ",card ") + std::to_string(card);
  return e;
}

std::filesystem::path Artifacts() {
  return std::filesystem::path(ARTIFACTS_DIR);
}

TEST_CASE(
    "Dashboard: a browser shows the curves, rungs and device timeline "
    "of a running sweep, live",
    "[server][browser][process]") {
  if (!BrowserInstalled()) {
    FAIL(
        "the browser test needs Debian's chromium and chromium-driver "
        "(scripts/install-deps.sh installs them)");
  }
  UseFakeMachine("dl1");
  Service service;
  auto client = service.Client();
  const auto gate = service.dir() / "gate";
  REQUIRE(client
              ->Call("POST", "/api/experiments",
                     SweepYaml("bert-lr", 1, gate, ", ids: [0, 1, 2, 3]"))
              .value()
              .status == 201);
  REQUIRE(
      client->Call("POST", "/api/experiments", SweepYaml("bert-lr-hi", 3, gate))
          .value()
          .status == 201);
  // Rung decisions and leases exist, the sweep goes on.
  REQUIRE(
      WaitFor(*client, "/api/experiments/bert-lr-hi/curves", "\"verdict\""));
  Browser browser((Artifacts() / "chromedriver.log").string());

  // The list: both experiments, and the machine's timeline with both.
  browser.Navigate(service.url() + "/");
  // Both hold cards at the gate once the share has served each of them.
  REQUIRE(browser.WaitUntil(
      "return document.querySelectorAll('#experiments tr[data-name]')"
      ".length == 2 && new Set([...document.querySelectorAll("
      "'#machine-timeline-chart rect.lease')].map(r => r.classList[1]))"
      ".size == 2;",
      60));
  json list = browser.Eval(
      "return [...new Set([...document.querySelectorAll("
      "'#machine-timeline-chart rect.lease')].map(r => r.classList[1]))]"
      ".sort();");
  CHECK(list == json({"experiment-0", "experiment-1"}));
  CHECK(browser.Eval("return [...document.querySelectorAll('#experiments "
                     "tr[data-name]')].map(r => r.dataset.name + ':' + "
                     "r.children[6].textContent).sort().join();") ==
        "bert-lr-hi:3,bert-lr:1");
  CHECK(browser.Screenshot(Artifacts() / "dashboard-list.png") > 10000);

  // One experiment, drawn while it runs.
  browser.Navigate(service.url() + "/#/experiments/bert-lr-hi");
  REQUIRE(browser.WaitUntil(
      "return !!document.querySelector('#curves-chart .curve') && "
      "!!document.querySelector('#timeline-chart rect.lease');",
      60));
  CHECK(browser.Eval("return document.querySelector('#status').textContent;") ==
        "running");
  std::ofstream(gate.string()).put('\n');

  // Live: without a reload, the page follows the sweep to its end.
  REQUIRE(WaitFor(*client, "/api/experiments/bert-lr", "\"finished\"", 120));
  REQUIRE(WaitFor(*client, "/api/experiments/bert-lr-hi", "\"finished\"", 120));
  REQUIRE(browser.WaitUntil(
      "return document.querySelector('#status').textContent == 'finished';",
      60));
  // One more redraw after the end, so the DOM holds the final data.
  int drawn = browser.Eval("return +document.body.dataset.drawn;");
  REQUIRE(browser.WaitUntil(
      "return +document.body.dataset.drawn > " + std::to_string(drawn) + ";",
      60));
  CHECK(drawn > 1);

  Expected expected = ExpectedOf(*client, "bert-lr-hi");
  REQUIRE(expected.curves > 0);
  CHECK(browser.Eval("return document.querySelectorAll('#curves-chart "
                     ".curve').length;") == expected.curves);
  CHECK(browser.Eval("return document.querySelectorAll('#curves-chart "
                     "line.rung').length;") == expected.milestones);
  CHECK(browser.Eval("return document.querySelectorAll('#curves-chart "
                     ".decision').length;") > 0);
  // Stopped trials are drawn grey; the others in their own colour.
  json stroke = browser.Eval(
      "const s = [...document.querySelectorAll('#curves-chart .curve')]"
      ".map(e => [e.classList[1], getComputedStyle(e).stroke]);"
      "return [s.filter(x => x[0] == 'stopped').map(x => x[1]), "
      "s.filter(x => x[0] == 'completed').map(x => x[1])];");
  REQUIRE(!stroke[0].empty());
  REQUIRE(!stroke[1].empty());
  for (const auto& s : stroke[0]) CHECK(s == "rgb(185, 190, 199)");
  for (const auto& s : stroke[1]) CHECK(s != "rgb(185, 190, 199)");
  CHECK(browser.Eval("return document.querySelectorAll('#timeline-chart "
                     "rect.lease').length;") == expected.lease_rects);
  CHECK(browser.Eval("return [...document.querySelectorAll('#timeline-chart "
                     ".lane-label')].map(e => e.textContent).join();") ==
        expected.lanes);
  CHECK(browser.Eval("return !!document.querySelector('#best-chart "
                     "path.best-line');") == true);
  CHECK(browser.Eval("return document.querySelectorAll('#param-lr "
                     "circle.param-point').length;") == expected.curves);
  CHECK(browser.Eval("return document.querySelectorAll('#trials "
                     "tr[data-trial]').length;") == 32);
  CHECK(browser.Eval("return document.querySelector('#error').hidden;") ==
        true);
  CHECK(browser.Screenshot(Artifacts() / "dashboard.png") > 20000);
}

// As off loopback, where reads need the token: the page opened without it
// shows the 401; opened with the URL `tuner serve` prints (?token=), it
// keeps the token for the tab, takes it out of the address bar, and reads
// with it, also on the next page. A failed experiment shows its reason.
TEST_CASE(
    "Dashboard: the ?token= URL lets the page read where reads need the "
    "token; a failed experiment shows why",
    "[server][browser][process]") {
  if (!BrowserInstalled()) {
    FAIL(
        "the browser test needs Debian's chromium and chromium-driver "
        "(scripts/install-deps.sh installs them)");
  }
  Service::Options options;
  options.token_for_reads = true;
  Service service(options);
  AddFailedExperiment(*storage::TrialStore::Open(service.db()).value(),
                      "broken", "internal error: boom");
  Browser browser((Artifacts() / "chromedriver-token.log").string());

  browser.Navigate(service.url() + "/");
  REQUIRE(browser.WaitUntil("return !document.querySelector('#error').hidden;",
                            60));
  CHECK(browser.Eval("return document.querySelectorAll('#experiments "
                     "tr[data-name]').length;") == 0);

  browser.Navigate(service.url() + "/?token=" + service.token());
  REQUIRE(browser.WaitUntil(
      "return document.querySelectorAll('#experiments tr[data-name]')"
      ".length == 1;",
      60));
  CHECK(browser.Eval("return location.search;") == "");
  CHECK(browser.Eval("return sessionStorage.getItem('tuner-token');") ==
        service.token());
  CHECK(browser.Eval("return document.querySelector('#experiments "
                     "tr[data-name] td:nth-child(2)').title;") ==
        "internal error: boom");

  // A new document (not a fragment change): the token comes from the tab's
  // sessionStorage.
  browser.Navigate(service.url() + "/?reload=1#/experiments/broken");
  REQUIRE(browser.WaitUntil(
      "return document.querySelector('#status') && "
      "document.querySelector('#status').textContent == 'failed';",
      60));
  CHECK(browser.Eval("const dt = [...document.querySelectorAll('#summary dt')]"
                     ".find(e => e.textContent == 'failed because');"
                     "return dt ? dt.nextElementSibling.textContent : '';") ==
        "internal error: boom");
  CHECK(browser.Eval("return document.querySelector('#error').hidden;") ==
        true);
}

}  // namespace
}  // namespace tuner::testing
