// bookkeeping: N trials through searcher + ASHA + SQLite in one process, the
// workload of ../shared/peers/optuna_overhead.py (same space, same curve,
// minimise, grace 1, rf 3, max_t R). Prints one JSON object.
//
// Durability is the sweep's: a trial's row is committed before it would be
// launched, and its reports and decisions before it would be stopped.
#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "schedulers/asha.h"
#include "schedulers/random_searcher.h"
#include "storage/trial_store.h"

namespace {

using tuner::core::Status;

// The peer's curve: loss falls faster for lr near 1e-3; noise-free.
double Curve(double lr, int step) {
  double q = std::abs(std::log10(lr) + 3.0);
  return 1.0 / (1.0 + step * std::exp(-q)) + 0.05 * q;
}

void Check(const Status& status) {
  if (status.ok()) return;
  std::cerr << "bookkeeping: " << status.message() << "\n";
  std::exit(1);
}

double PeakRssMb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024.0;
}

struct Totals {
  int64_t reports = 0;
  int64_t completed = 0;
  double best = INFINITY;
};

// FIFO: no early stopping; every trial reports `reports` times.
tuner::core::Decision FifoDecision(int step, int reports) {
  tuner::core::Decision decision;
  decision.action = step < reports ? tuner::core::Action::kContinue
                                   : tuner::core::Action::kComplete;
  return decision;
}

void RunTrial(int64_t index, int reports, tuner::schedulers::Searcher& searcher,
              tuner::schedulers::TrialScheduler& scheduler,
              tuner::storage::TrialStore& store, int64_t experiment,
              bool commit_each, bool fifo, Totals& totals) {
  using namespace tuner;
  core::Params params = *searcher.Suggest(index);
  double lr = std::get<double>(params[0].second);
  auto id = store.trials().Add(experiment, index, params);
  Check(id.status());
  scheduler.OnAdd(id.value(), index);
  Check(store.trials().MarkRunning(id.value()));
  if (commit_each) Check(store.Commit());
  for (int step = 1; step <= reports; ++step) {
    double value = Curve(lr, step);
    core::Metrics metrics{{"loss", value}, {"step", step}};
    Check(store.reports().Append({id.value(), step, step, value, metrics},
                                 core::Mode::kMin));
    ++totals.reports;
    core::Decision decision = fifo
                                  ? FifoDecision(step, reports)
                                  : scheduler.OnReport(id.value(), step, value);
    for (const auto& rung : decision.rungs)
      Check(store.reports().AppendDecision({id.value(), rung}));
    if (decision.action == core::Action::kContinue) continue;
    bool done = decision.action == core::Action::kComplete;
    if (done) {
      ++totals.completed;
      totals.best = std::min(totals.best, value);
    }
    Check(store.trials().Finish(
        id.value(),
        {done ? core::TrialStatus::kCompleted : core::TrialStatus::kStopped, 0,
         done ? "" : "rung", std::nullopt}));
    if (commit_each) Check(store.Commit());
    return;
  }
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tuner;
  CLI::App app{"ASHA bookkeeping benchmark"};
  int64_t trials = 1000;
  int reports = 27;
  std::string storage = "memory";
  app.add_option("--trials", trials, "trials to run")
      ->check(CLI::PositiveNumber);
  app.add_option("--reports", reports, "max_t: reports per full trial")
      ->check(CLI::PositiveNumber);
  app.add_option("--storage", storage, "database file, or memory");
  int64_t commit_every = 1000;
  app.add_option("--commit-every", commit_every,
                 "trials per transaction (1: commit before each launch and "
                 "each stop, as a sweep does)")
      ->check(CLI::PositiveNumber);
  std::string scheduler_name = "asha";
  app.add_option("--scheduler", scheduler_name,
                 "asha (stops most trials early) or fifo (every trial "
                 "reports --reports times)")
      ->check(CLI::IsMember({"asha", "fifo"}));
  CLI11_PARSE(app, argc, argv);

  std::string path = storage == "memory" ? ":memory:" : storage;
  if (path != ":memory:") {
    for (const char* suffix : {"", "-wal", "-shm"})
      std::remove((path + suffix).c_str());
  }
  auto opened = storage::TrialStore::Open(path);
  Check(opened.status());
  storage::TrialStore& store = *opened.value();

  core::SearchSpace space;
  space.params.push_back(
      {"lr", core::Distribution::kLogUniform, 1e-6, 1e-1, 0, {}, {}});
  core::SchedulerSpec spec;
  spec.max_t = reports;
  spec.grace_period = 1;
  spec.reduction_factor = 3;
  spec.mode = core::Mode::kMin;
  schedulers::RandomSearcher searcher(space, 1);
  schedulers::AshaScheduler scheduler(spec);

  auto start = std::chrono::steady_clock::now();
  storage::ExperimentRecord record;
  record.name = "bookkeeping";
  record.status = core::ExperimentStatus::kRunning;
  record.metric = "loss";
  record.mode = core::Mode::kMin;
  record.time_attr = "step";
  record.max_t = reports;
  record.config_json = "{}";
  auto experiment = store.experiments().Create(record);
  Check(experiment.status());
  Totals totals;
  for (int64_t i = 0; i < trials; ++i) {
    RunTrial(i, reports, searcher, scheduler, store, experiment.value(),
             commit_every == 1, scheduler_name == "fifo", totals);
    if (commit_every > 1 && (i + 1) % commit_every == 0) Check(store.Commit());
  }
  Check(store.experiments().SetStatus(
      experiment.value(), tuner::core::ExperimentStatus::kFinished));
  Check(store.Commit());
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();

  nlohmann::json out = {
      {"tool", "tuner"},
      {"storage", storage},
      {"scheduler", scheduler_name},
      {"commit_every", commit_every},
      {"trials", trials},
      {"reports", totals.reports},
      {"completed", totals.completed},
      {"seconds", std::round(seconds * 1e6) / 1e6},
      {"reports_per_s", std::round(totals.reports / seconds * 10) / 10},
      {"trials_per_s", std::round(trials / seconds * 100) / 100},
      {"peak_rss_mb", std::round(PeakRssMb() * 10) / 10},
      {"best", totals.best},
  };
  std::cout << out.dump() << std::endl;
  return 0;
}
