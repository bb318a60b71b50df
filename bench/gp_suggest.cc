// The gp searcher's cost: the time of a suggestion with 100, 1,000 and
// 10,000 trials behind it (p50, p99, max over --samples suggestions), a
// refit included where one falls due, on a synthetic 7-parameter problem
// reported at asha's rungs (1, 3, 9, 27: each trial at rung 1, a third of
// them at 3, and so on), 8 trials pending. Prints one JSON object.
//
// Usage: gp_suggest [--trials 100,1000,10000] [--samples 50]
//                   [--max-points 256] [--model rung|joint]
#include <chrono>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "bench/percentile.h"
#include "schedulers/gp_searcher.h"
#include "schedulers/random_searcher.h"

namespace {

using tuner::core::ParamSpec;

tuner::core::SearchSpace Space() {
  tuner::core::SearchSpace space;
  auto add = [&](const char* name, tuner::core::Distribution d, double low,
                 double high) {
    ParamSpec p;
    p.name = name;
    p.distribution = d;
    p.low = low;
    p.high = high;
    space.params.push_back(p);
  };
  using tuner::core::Distribution;
  add("batch_size", Distribution::kLogRandInt, 16, 512);
  add("learning_rate", Distribution::kLogUniform, 1e-4, 0.1);
  add("momentum", Distribution::kUniform, 0.1, 0.99);
  add("weight_decay", Distribution::kUniform, 1e-5, 0.1);
  add("num_layers", Distribution::kRandInt, 1, 5);
  add("max_units", Distribution::kLogRandInt, 64, 1024);
  add("max_dropout", Distribution::kUniform, 0, 1);
  return space;
}

double Number(const tuner::core::ParamValue& v) {
  if (auto* d = std::get_if<double>(&v)) return *d;
  if (auto* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
  return 0;
}

// A smooth loss with an optimum inside the space, lower at higher rungs.
double Loss(const tuner::core::Params& p, double rung) {
  double lr = std::log10(Number(p[1].second)) + 2.5;
  double m = Number(p[2].second) - 0.9;
  double d = Number(p[6].second) - 0.3;
  return lr * lr + m * m + d * d + 1.0 / rung;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("the gp searcher's suggestion time");
  std::string trials_list = "100,1000,10000", model = "rung";
  int samples = 50, max_points = 256;
  app.add_option("--trials", trials_list);
  app.add_option("--samples", samples)->check(CLI::Range(1, 100000));
  app.add_option("--max-points", max_points)->check(CLI::Range(2, 4096));
  app.add_option("--model", model)->check(CLI::IsMember({"rung", "joint"}));
  CLI11_PARSE(app, argc, argv);
  std::vector<int64_t> marks;
  std::stringstream in(trials_list);
  for (std::string item; std::getline(in, item, ',');)
    marks.push_back(std::stoll(item));

  tuner::core::SearcherSpec spec;
  spec.seed = 1;
  spec.max_points = max_points;
  spec.joint = model == "joint";
  tuner::schedulers::GpSearcher searcher(Space(), spec,
                                         tuner::core::Mode::kMin);
  constexpr int kPending = 8;
  nlohmann::json out = {{"max_points", max_points}, {"model", model}};
  int64_t next = 0;
  std::vector<std::pair<int64_t, tuner::core::Params>> running;
  auto report = [&](int64_t index, const tuner::core::Params& p) {
    int64_t k = index + 1;
    for (double rung : {1.0, 3.0, 9.0, 27.0}) {
      searcher.Observe(index, p, rung, Loss(p, rung));
      if (k % 3 != 0) break;
      k /= 3;  // a third go on to the next rung
    }
  };
  // Trials before each mark are observed without being timed (random
  // configurations, as a resumed sweep replays its reports); then
  // `samples` suggestions are timed, each reported once 8 are pending.
  tuner::schedulers::RandomSearcher filler(Space(), 2);
  for (int64_t mark : marks) {
    for (; next < mark; ++next) report(next, *filler.Suggest(next));
    std::vector<double> ms;
    for (int s = 0; s < samples; ++s, ++next) {
      auto start = std::chrono::steady_clock::now();
      auto params = searcher.Suggest(next);
      ms.push_back(std::chrono::duration<double, std::milli>(
                       std::chrono::steady_clock::now() - start)
                       .count());
      running.emplace_back(next, *params);
      if (static_cast<int>(running.size()) > kPending) {
        report(running.front().first, running.front().second);
        running.erase(running.begin());
      }
    }
    out["trials"][std::to_string(mark)] = {
        {"p50_ms", tuner::bench::Percentile(ms, 0.5)},
        {"p99_ms", tuner::bench::Percentile(ms, 0.99)},
        {"max_ms", tuner::bench::Percentile(ms, 1.0)},
        {"points", searcher.last_points()}};
  }
  std::printf("%s\n", out.dump().c_str());
  return 0;
}
