// dashboard_load: how long the dashboard takes to draw a big experiment,
// and how many bytes one live update costs. Makes the experiment with the
// bookkeeping benchmark (N trials through ASHA into a SQLite file), starts
// `tuner serve` on it, opens the experiment's page in headless Chromium
// (tests/server/webdriver.h) and reads the page's own marks: the time from
// navigation start until every chart had drawn, and the size of each read
// of the first draw and of the next (incremental) one. Prints one JSON
// object.
#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>

#include "bench/serve_process.h"
#include "tests/server/webdriver.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using nlohmann::json;

[[noreturn]] void Die(const std::string& message) {
  std::cerr << "dashboard_load: " << message << "\n";
  std::exit(1);
}

double Since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Runs the bookkeeping benchmark into dir/tuner.db; returns its JSON.
json MakeExperiment(const fs::path& dir, int64_t trials, int reports,
                    const std::string& scheduler) {
  tuner::runner::SpawnRequest request;
  request.argv = {BOOKKEEPING_BINARY,
                  "--trials",
                  std::to_string(trials),
                  "--reports",
                  std::to_string(reports),
                  "--scheduler",
                  scheduler,
                  "--storage",
                  (dir / "tuner.db").string()};
  request.stdout_path = (dir / "bookkeeping.out").string();
  request.stderr_path = (dir / "bookkeeping.err").string();
  auto spawned = tuner::runner::Spawn(request);
  if (!spawned.ok()) Die(spawned.message());
  int status = 0;
  waitpid(spawned.value().pid, &status, 0);
  close(spawned.value().pidfd);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    Die("bookkeeping failed; see " + (dir / "bookkeeping.err").string());
  }
  std::ifstream in(dir / "bookkeeping.out");
  return json::parse(in);
}

// Waits until the page has drawn more than `drawn` times; returns seconds.
double WaitDrawn(tuner::testing::Browser& browser, int drawn) {
  auto start = Clock::now();
  bool ok = browser.WaitUntil(
      "return +(document.body.dataset.drawn || 0) > " + std::to_string(drawn) +
          " || !document.querySelector('#error').hidden;",
      300);
  if (!ok ||
      browser.Eval("return document.querySelector('#error').hidden;") != true) {
    Die("the page did not draw; error banner: " +
        browser.Eval("return document.querySelector('#error').textContent;")
            .dump());
  }
  return Since(start);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"dashboard load benchmark"};
  int64_t trials = 50000;
  int reports = 50;
  std::string dir_option;
  std::string scheduler = "asha";
  app.add_option("--scheduler", scheduler,
                 "asha (most trials stop early) or fifo (every trial "
                 "reports --reports times)")
      ->check(CLI::IsMember({"asha", "fifo"}));
  app.add_option("--trials", trials, "trials in the experiment")
      ->check(CLI::PositiveNumber);
  app.add_option("--reports", reports, "max_t: reports of a full trial")
      ->check(CLI::PositiveNumber);
  app.add_option("--dir", dir_option,
                 "where the database, logs and screenshot go (default: a "
                 "new temporary directory)");
  CLI11_PARSE(app, argc, argv);
  if (!tuner::testing::BrowserInstalled()) {
    Die("needs Debian's chromium and chromium-driver");
  }
  fs::path dir = dir_option.empty()
                     ? fs::temp_directory_path() /
                           ("dashboard_load." + std::to_string(getpid()))
                     : fs::path(dir_option);
  fs::create_directories(dir);
  json made = MakeExperiment(dir, trials, reports, scheduler);

  // The incremental read re-reads the last 3 s of writes (the cursor's
  // overlap): let them pass, so the update measures a quiet experiment.
  std::this_thread::sleep_for(std::chrono::seconds(4));
  tuner::bench::Server server(dir, {"--no-resume"});
  try {
    tuner::testing::Browser browser((dir / "chromedriver.log").string());
    browser.Navigate(server.url() + "/?token=" + server.token() +
                     "#/experiments/bookkeeping");
    WaitDrawn(browser, 0);
    json first = browser.Eval(
        "return {ms: tunerTest.firstDrawMs, bytes: tunerTest.firstBytes, "
        "render: tunerTest.renderMs, draw: tunerTest.drawMs, "
        "curves: tunerTest.charts.curves.trials.length, "
        "lines: tunerTest.charts.parallel.lines};");
    browser.Screenshot(dir / "dashboard_load.png");
    // The next draw reads only what changed since the first.
    int drawn = browser.Eval(
        "tunerTest.bytes = {}; tunerTest.refresh();"
        "return +document.body.dataset.drawn;");
    auto update = Clock::now();
    WaitDrawn(browser, drawn);
    double update_s = Since(update);
    json next = browser.Eval(
        "return {bytes: tunerTest.bytes, render: tunerTest.renderMs, "
        "draw: tunerTest.drawMs};");
    json out = {
        {"trials", trials},
        {"scheduler", scheduler},
        {"reports", made["reports"]},
        {"curves_drawn", first["curves"]},
        {"first_draw_ms", first["ms"]},
        {"first_bytes", first["bytes"]},
        {"first_render_ms", first["render"]},
        {"update_s", std::round(update_s * 1000) / 1000},
        {"update_draw_ms", next["draw"]},
        {"update_bytes", next["bytes"]},
        {"update_render_ms", next["render"]},
        {"screenshot", (dir / "dashboard_load.png").string()},
    };
    std::cout << out.dump() << std::endl;
  } catch (const tuner::testing::WebDriverError& e) {
    Die(e.what());
  }
  return 0;
}
