// scheduler_decisions: the cost of one ASHA decision with N trials recorded.
// Records N trials at the first rung (grace 1, rf 3, max_t 27), then times
// `--samples` more decisions one by one, each a new trial reporting at the
// first rung. Prints p50, p99 and mean microseconds as one JSON object.
#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>
#include <vector>

#include "schedulers/asha.h"
#include "schedulers/sampling.h"

int main(int argc, char** argv) {
  using namespace tuner;
  using Clock = std::chrono::steady_clock;
  CLI::App app{"ASHA decision cost benchmark"};
  int64_t trials = 10000;
  int64_t samples = 100000;
  app.add_option("--trials", trials, "trials recorded before timing")
      ->check(CLI::PositiveNumber);
  app.add_option("--samples", samples, "decisions timed")
      ->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);

  core::SchedulerSpec spec;
  spec.max_t = 27;
  spec.mode = core::Mode::kMin;
  schedulers::AshaScheduler asha(spec);
  schedulers::Rng rng(42);
  core::TrialId id = 0;
  for (; id < trials; ++id) {
    asha.OnAdd(id, id);
    asha.OnReport(id, 1, rng.NextUnit());
  }
  std::vector<double> micros;
  micros.reserve(samples);
  int64_t stopped = 0;
  for (int64_t i = 0; i < samples; ++i, ++id) {
    double value = rng.NextUnit();
    asha.OnAdd(id, id);
    auto start = Clock::now();
    core::Decision d = asha.OnReport(id, 1, value);
    auto end = Clock::now();
    micros.push_back(
        std::chrono::duration<double, std::micro>(end - start).count());
    stopped += d.action == core::Action::kStop;
  }
  double mean = 0;
  for (double m : micros) mean += m / static_cast<double>(micros.size());
  std::sort(micros.begin(), micros.end());
  auto at = [&](double q) {
    return micros[static_cast<size_t>(q *
                                      static_cast<double>(micros.size() - 1))];
  };
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  nlohmann::json out = {
      {"trials", trials},
      {"samples", samples},
      {"p50_us", std::round(at(0.50) * 1000) / 1000},
      {"p99_us", std::round(at(0.99) * 1000) / 1000},
      {"mean_us", std::round(mean * 1000) / 1000},
      {"stopped_share", static_cast<double>(stopped) / samples},
      {"peak_rss_mb", std::round(usage.ru_maxrss / 102.4) / 10},
  };
  std::cout << out.dump() << std::endl;
  return 0;
}
