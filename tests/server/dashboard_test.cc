// The dashboard in a real browser (Debian's headless Chromium through
// ChromeDriver): while two experiments run on a fake DL1, the curves, the
// rungs, the greyed stopped trials and the device timeline are drawn and the
// page follows the sweep live; on a stored experiment with known curves,
// the parameter views, the metric and log-y choices, the trials table and
// the control buttons. The charts are canvases: the test reads what each
// was handed (window.tunerTest.charts), not pixels. Screenshots are saved
// as artifacts (build/test-artifacts/).
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "storage/trial_store.h"
#include "tests/catch.h"
#include "tests/server/service_fixture.h"
#include "tests/server/views_experiment.h"
#include "tests/server/webdriver.h"
#include "tests/support/failed_experiment.h"
#include "tests/support/fake_machine.h"

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
  size_t curves = 0;                    // trials with at least one report
  size_t points = 0;                    // their reports in the overview
  size_t all_points = 0;                // all their reports
  std::map<int64_t, int64_t> last_seq;  // each trial's last report
  size_t milestones = 0;                // distinct rungs with a decision
  size_t lease_rects = 0;               // one per device of each lease
  std::string lanes;             // "card 0,card 1,..." for the cards it used
  json stopped = json::array();  // ids of stopped trials with reports
};

Expected ExpectedOf(server::HttpClient& client, const std::string& name) {
  json curves = Get(client, "/api/experiments/" + name + "/curves");
  json full = Get(client, "/api/experiments/" + name + "/curves?since=0");
  json leases = Get(client, "/api/experiments/" + name + "/leases");
  Expected e;
  std::map<int64_t, size_t> points;  // overview reports per trial
  for (const auto& trial : curves["points"]["trial"]) {
    ++points[trial.get<int64_t>()];
  }
  e.all_points = full["points"]["trial"].size();
  for (size_t i = 0; i < e.all_points; ++i) {
    e.last_seq[full["points"]["trial"][i]] = full["points"]["seq"][i];
  }
  const json& trials = curves["trials"];
  for (size_t i = 0; i < trials["id"].size(); ++i) {
    size_t n = points[trials["id"][i].get<int64_t>()];
    e.curves += n > 0;
    e.points += n;
    if (trials["status"][i] == "stopped" && n > 0) {
      e.stopped.push_back(trials["id"][i]);
    }
  }
  std::set<double> milestones;
  for (const auto& m : curves["decisions"]["milestone"])
    milestones.insert(m.get<double>());
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
  REQUIRE(WaitForBody(*client, "/api/experiments/bert-lr-hi/curves",
                      "\"verdict\""));
  Browser browser((Artifacts() / "chromedriver.log").string());

  // The list: both experiments, and the machine's timeline with both
  // (opened with the token, so the experiment page has its buttons).
  browser.Navigate(service.url() + "/?token=" + service.token());
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
  CHECK(browser.Eval("return [...document.querySelectorAll("
                     "'#machine-timeline-legend li')].map(e => e.textContent)"
                     ".join();") ==
        "bert-lr-hi,bert-lr,still held (grows with time)");
  CHECK(browser.Screenshot(Artifacts() / "dashboard-list.png") > 10000);

  // One experiment, drawn while it runs.
  browser.Navigate(service.url() + "/#/experiments/bert-lr-hi");
  REQUIRE(browser.WaitUntil(
      "return !!tunerTest.charts.curves && "
      "tunerTest.charts.curves.trials.length > 0 && "
      "!!document.querySelector('#timeline-chart rect.lease');",
      60));
  CHECK(browser.Eval("return document.querySelector('#status').textContent;") ==
        "running");
  CHECK(browser.Eval("return document.getElementById('stop-button').hidden;") ==
        false);
  std::ofstream(gate.string()).put('\n');

  // Live: without a reload, the page follows the sweep to its end.
  REQUIRE(
      WaitForBody(*client, "/api/experiments/bert-lr", "\"finished\"", 120));
  REQUIRE(
      WaitForBody(*client, "/api/experiments/bert-lr-hi", "\"finished\"", 120));
  REQUIRE(browser.WaitUntil(
      "return document.querySelector('#status').textContent == 'finished';",
      60));
  CHECK(browser.Eval("return document.getElementById('stop-button').hidden;") ==
        true);
  // One more redraw after the end, so the DOM holds the final data.
  int drawn = browser.Eval("return +document.body.dataset.drawn;");
  REQUIRE(browser.WaitUntil(
      "return +document.body.dataset.drawn > " + std::to_string(drawn) + ";",
      60));
  CHECK(drawn > 1);

  Expected expected = ExpectedOf(*client, "bert-lr-hi");
  REQUIRE(expected.curves > 0);
  json curves = browser.Eval("return tunerTest.charts.curves;");
  CHECK(curves["trials"].size() == expected.curves);
  // The page merged its incremental reads (every new report) into its
  // first read (the overview): at least the overview's points, at most all
  // reports, and each trial's curve ends at its last report.
  size_t points = 0;
  for (const auto& t : curves["trials"]) {
    points += t["points"].get<size_t>();
    CHECK(t["last_seq"] == expected.last_seq[t["id"].get<int64_t>()]);
  }
  CHECK(points >= expected.points);
  CHECK(points <= expected.all_points);
  json reads = browser.Eval(
      "return tunerTest.reads.filter(r => r.includes('/bert-lr-hi/curves'));");
  REQUIRE(reads.size() >= 2);
  CHECK(reads[0] == "/api/experiments/bert-lr-hi/curves?");
  CHECK(reads.back().get<std::string>().find("?since=") != std::string::npos);
  CHECK(curves["milestones"].size() == expected.milestones);
  size_t decisions = 0;
  for (const auto& [verdict, n] : curves["decisions"].items())
    decisions += n.get<size_t>();
  CHECK(decisions > 0);
  // Stopped trials are in the grey series; the completed ones in colour.
  REQUIRE(!expected.stopped.empty());
  CHECK(browser.Eval("return tunerTest.charts.curves.groups.stopped"
                     ".sort((a, b) => a - b);") == expected.stopped);
  for (const auto& series : curves["series"]) {
    std::string label = series["label"];
    if (label == "stopped") CHECK(series["stroke"] == "#b9bec7");
    if (label.rfind("hue-", 0) == 0) CHECK(series["stroke"] != "#b9bec7");
  }
  json completed = browser.Eval(
      "return tunerTest.charts.curves.trials.filter(t => t.status == "
      "'completed').map(t => t.id);");
  REQUIRE(!completed.empty());
  for (const auto& id : completed) {
    CHECK(browser.Eval("return Object.entries(tunerTest.charts.curves.groups)"
                       ".find(([k, v]) => v.includes(" +
                       id.dump() +
                       "))[0]"
                       ".startsWith('hue-');") == true);
  }
  CHECK(browser.Eval("return document.querySelectorAll('#timeline-chart "
                     "rect.lease').length;") == expected.lease_rects);
  CHECK(browser.Eval("return [...document.querySelectorAll('#timeline-chart "
                     ".lane-label')].map(e => e.textContent).join();") ==
        expected.lanes);
  CHECK(browser.Eval("return [...document.querySelectorAll("
                     "'#timeline-legend li')].length;") == 7);
  CHECK(browser.Eval("return tunerTest.charts.best.steps.length > 0;") == true);
  CHECK(browser.Eval("return tunerTest.charts.params.lr;") ==
        json({{"points", expected.curves}, {"log", true}}));
  CHECK(browser.Eval("return document.querySelectorAll('#trials "
                     "tr[data-trial]').length;") == 32);
  CHECK(browser.Eval("return document.querySelector('#error').hidden;") ==
        true);
  CHECK(browser.Screenshot(Artifacts() / "dashboard.png") > 20000);
  browser.Eval(
      "document.getElementById('timeline').scrollIntoView(); return 0;");
  CHECK(browser.Screenshot(Artifacts() / "dashboard-timeline.png") > 20000);
}

// Waits for a redraw after `action` (a script) and returns `result`.
json AfterRedraw(Browser& browser, const std::string& action,
                 const std::string& result) {
  int drawn = browser.Eval("return +document.body.dataset.drawn;");
  browser.Eval(action + "; tunerTest.refresh(); return 0;");
  REQUIRE(browser.WaitUntil(
      "return +document.body.dataset.drawn > " + std::to_string(drawn) + ";",
      60));
  return browser.Eval("return " + result + ";");
}

// The views of AddViewsExperiment's "views": its score depends on lr only.
void CheckViews(Browser& browser, const std::string& url) {
  browser.Navigate(url + "/?reload=2#/experiments/views");
  REQUIRE(browser.WaitUntil(
      "return !!tunerTest.charts.importance && "
      "document.querySelectorAll('#trials tr[data-trial]').length == 40;",
      60));
  json charts = browser.Eval("return tunerTest.charts;");
  CHECK(charts["curves"]["trials"].size() == kViewsTrials);
  CHECK(charts["curves"]["groups"]["stopped"].size() == 28);
  CHECK(charts["parallel"] == json({{"axes",
                                     {{{"name", "lr"}, {"log", true}},
                                      {{"name", "batch"}, {"log", false}}}},
                                    {"lines", kViewsTrials}}));
  REQUIRE(charts["importance"].size() == 2);
  CHECK(charts["importance"][0]["name"] == "lr");
  CHECK(charts["importance"][0]["score"].get<double>() > 0.5);
  CHECK(charts["importance"][1]["score"].get<double>() < 0.2);
  CHECK(charts["importance"][0]["trials"] == 40 + 24);  // rungs 1 and 2
  CHECK(charts["contour"]["x"] == "lr");
  CHECK(charts["contour"]["y"] == "batch");
  CHECK(charts["contour"]["milestone"] == 2);  // the deepest with 10 trials
  CHECK(charts["contour"]["trials"] == 24);
  CHECK(charts["contour"]["cells"].get<int>() > 3);
  CHECK(browser.Screenshot(Artifacts() / "dashboard-views.png") > 20000);
  browser.Eval("window.scrollTo(0, 1250); return 0;");
  CHECK(browser.Screenshot(Artifacts() / "dashboard-views-2.png") > 20000);

  // Another stored metric, then a log y axis.
  CHECK(browser.Eval("return [...document.querySelectorAll('#metric-select "
                     "option')].map(o => o.textContent).join();") ==
        "score,loss,acc");
  CHECK(AfterRedraw(browser,
                    "const s = document.getElementById('metric-select');"
                    "s.value = 'loss'; s.dispatchEvent(new Event('change'))",
                    "[tunerTest.charts.curves.metric, "
                    "tunerTest.charts.curves.trials.length, "
                    "Object.keys(tunerTest.charts.curves.decisions).length]") ==
        json({"loss", kViewsTrials, 0}));
  browser.Eval("document.getElementById('log-y').click(); return 0;");
  CHECK(browser.Eval("return tunerTest.charts.curves.logY;") == true);

  // The table: sort by id descending, keep the completed trials, CSV.
  browser.Eval(
      "document.querySelector('#trials th[data-key=id]').click();"
      "const f = document.getElementById('trials-filter');"
      "f.value = 'completed'; f.dispatchEvent(new Event('input'));"
      "return 0;");
  json rows = browser.Eval(
      "return [...document.querySelectorAll('#trials tr[data-trial]')]"
      ".map(r => [+r.dataset.trial, r.children[1].textContent]);");
  REQUIRE(rows.size() == 12);                 // trials 10..21 complete
  CHECK(rows[0] == json({22, "completed"}));  // ids are 1-based
  CHECK(rows[11] == json({11, "completed"}));
  json csv = browser.Eval(
      "return TrialsTable.csv(TrialsTable.rows(document.getElementById("
      "'trials-section').trials)).trim().split('\\n');");
  REQUIRE(csv.size() == 13);
  CHECK(csv[0] ==
        "id,status,lr,batch,last_time,last_value,best_value,attempts,reason");
  CHECK(csv[1].get<std::string>().rfind("22,completed,", 0) == 0);

  // The scatters' category labels never overlap: short ones level, many
  // long ones turned and thinned.
  CHECK(charts["params"]["batch"]["labels"] ==
        json({{"rotate", 0}, {"every", 1}}));
  json crowded = browser.Eval(
      "return Views.categoryLayout(Array.from({length: 24}, (_, i) => "
      "'optimizer-variant-' + i), 234);");
  CHECK(crowded["rotate"] == -45);
  CHECK(crowded["every"] == 2);
  CHECK(crowded["labels"][0] == "optimizer-varia\u2026");

  // One trial's page: its whole curve and its logs' tails (this stored
  // experiment has no trial directories: the page says so).
  browser.Eval(
      "document.querySelector('#trials tr[data-trial=\"22\"] "
      "a.trial-link').click(); return 0;");
  REQUIRE(browser.WaitUntil(
      "return !!tunerTest.charts.trial && tunerTest.charts.trial.id == 22;",
      60));
  CHECK(browser.Eval("return location.hash;") ==
        "#/experiments/views/trials/22");
  json trial = browser.Eval("return tunerTest.charts.trial;");
  CHECK(trial["reports"] == 4);
  CHECK(trial["points"] == 4);
  CHECK(trial["complete"] == true);
  CHECK(browser.Eval("return document.getElementById('trial-stdout')"
                     ".textContent;") == "trial 22 has no logs");
  CHECK(browser.Screenshot(Artifacts() / "dashboard-trial.png") > 10000);
  browser.Navigate(url + "/?reload=3#/experiments/views");
  REQUIRE(browser.WaitUntil(
      "return document.querySelectorAll('#trials tr[data-trial]').length == "
      "40;",
      60));

  // The buttons, with the token: no Stop on an experiment that does not
  // run; extend (asks how many), delete (only once confirmed).
  CHECK(browser.Eval("return document.getElementById('stop-button').hidden;") ==
        true);
  browser.Eval(
      "window.prompt = () => '5'; window.confirm = () => false;"
      "document.getElementById('extend-button').click();"
      "document.getElementById('delete-button').click(); return 0;");
  REQUIRE(browser.WaitUntil("return tunerTest.control.length == 1;", 30));
  browser.Eval(
      "window.confirm = () => true;"
      "document.getElementById('delete-button').click(); return 0;");
  REQUIRE(browser.WaitUntil("return tunerTest.control.length == 2;", 30));
  json control =
      browser.Eval("return tunerTest.control.map(c => c.path).sort();");
  CHECK(control == json({"/api/experiments/views/delete",
                         "/api/experiments/views/extend?trials=5"}));
}

// As off loopback, where reads need the token: the page opened without it
// shows the 401; opened with the URL `tuner serve` prints (?token=), it
// keeps the token for the tab, takes it out of the address bar, and reads
// with it, also on the next page. A failed experiment shows its reason.
// Then the views of an experiment with known curves, and the buttons the
// token brings.
TEST_CASE(
    "Dashboard: the ?token= URL lets the page read where reads need the "
    "token, a failed experiment shows why, the parameter views, table and "
    "buttons",
    "[server][browser][process]") {
  if (!BrowserInstalled()) {
    FAIL(
        "the browser test needs Debian's chromium and chromium-driver "
        "(scripts/install-deps.sh installs them)");
  }
  Service::Options options;
  options.token_for_reads = true;
  Service service(options);
  {
    auto store = storage::TrialStore::Open(service.db());
    REQUIRE(store.ok());
    AddFailedExperiment(*store.value(), "broken", "internal error: boom");
    AddViewsExperiment(*store.value(), "views");
  }
  Browser browser((Artifacts() / "chromedriver-token.log").string());

  browser.Navigate(service.url() + "/");
  REQUIRE(browser.WaitUntil("return !document.querySelector('#error').hidden;",
                            60));
  CHECK(browser.Eval("return document.querySelectorAll('#experiments "
                     "tr[data-name]').length;") == 0);

  browser.Navigate(service.url() + "/?token=" + service.token());
  REQUIRE(browser.WaitUntil(
      "return document.querySelectorAll('#experiments tr[data-name]')"
      ".length == 2;",
      60));
  CHECK(browser.Eval("return location.search;") == "");
  CHECK(browser.Eval("return sessionStorage.getItem('tuner-token');") ==
        service.token());
  CHECK(browser.Eval("return document.querySelector('#experiments "
                     "tr[data-name=broken] td:nth-child(2)').title;") ==
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
  CheckViews(browser, service.url());
}

}  // namespace
}  // namespace tuner::testing
