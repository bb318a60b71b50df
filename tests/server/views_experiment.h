// A stored experiment with known curves, for the dashboard's views: 40
// trials over lr (log-uniform) and batch (a choice), each reporting score,
// loss and acc at epochs 1..4, stopped at rung 1 or 2 unless in the best
// quarter. The score depends on lr only, so lr is the important
// parameter and batch is not. No process runs: rows are written directly,
// on a clock the caller sets.
#ifndef TUNER_TESTS_SERVER_VIEWS_EXPERIMENT_H_
#define TUNER_TESTS_SERVER_VIEWS_EXPERIMENT_H_

#include <cmath>
#include <string>

#include "storage/trial_store.h"
#include "tests/catch.h"
#include "tuner/config/config_loader.h"
#include "tuner/config/stored_config.h"

namespace tuner::testing {

inline constexpr int kViewsTrials = 40;

inline std::string ViewsYaml(const std::string& name) {
  return "name: " + name + R"(
command: train --lr {lr} --batch {batch}
metric: score
mode: max
time_attr: epoch
search_space:
  lr: {type: loguniform, low: 1.0e-5, high: 1.0}
  batch: {type: choice, values: [16, 32, 64]}
num_trials: 40
scheduler: {type: asha, max_t: 4, grace_period: 1, reduction_factor: 2}
devices: {kind: cpu, slots: 1}
)";
}

// Trial i's score at an epoch: best for lr near 1e-3, rising with epochs.
inline double ViewsScore(double lr, int epoch) {
  return (1 - std::abs(std::log10(lr) + 3) / 5) * epoch / (epoch + 1.0);
}

inline double ViewsLr(int i) { return std::pow(10.0, -5 + 5.0 * i / 39); }

// Adds the experiment; returns its id. Trials 0..39 take lr from 1e-5 to
// 1 and batch 16, 32, 64 in turn; a trial whose lr is more than 1.5
// decades from 1e-3 stops at rung 1 (epoch 1), one more than 0.8 decades
// at rung 2 (epoch 2), the rest complete at epoch 4.
inline storage::ExperimentId AddViewsExperiment(storage::TrialStore& store,
                                                const std::string& name) {
  std::string yaml = ViewsYaml(name);
  auto config = LoadConfigText(yaml, name + ".yaml", "/", "/");
  REQUIRE(config.ok());
  storage::ExperimentRecord e;
  e.name = name;
  e.status = core::ExperimentStatus::kFinished;
  e.metric = "score";
  e.time_attr = "epoch";
  e.max_t = 4;
  e.config_json =
      StoredConfigJson(config.value(), yaml, name + ".yaml", "/", "/tuner.db");
  auto id = store.experiments().Create(e);
  REQUIRE(id.ok());
  for (int i = 0; i < kViewsTrials; ++i) {
    double lr = ViewsLr(i);
    int64_t batch = 16 << (i % 3);
    auto trial =
        store.trials().Add(id.value(), i, {{"lr", lr}, {"batch", batch}});
    REQUIRE(trial.ok());
    REQUIRE(store.trials().MarkRunning(trial.value()).ok());
    double distance = std::abs(std::log10(lr) + 3);
    int last = distance > 1.5 ? 1 : distance > 0.8 ? 2 : 4;
    for (int epoch = 1; epoch <= last; ++epoch) {
      double score = ViewsScore(lr, epoch);
      core::Metrics metrics{{"epoch", epoch},
                            {"score", score},
                            {"loss", 1 - score},
                            {"acc", 0.5 * score}};
      REQUIRE(store.reports()
                  .Append({trial.value(), epoch, epoch, score, metrics},
                          core::Mode::kMax)
                  .ok());
      if (epoch == 1 || epoch == 2) {
        core::RungDecision d;
        d.rung = epoch - 1;
        d.milestone = epoch;
        d.value = score;
        d.verdict = epoch < last ? core::RungVerdict::kContinue
                                 : core::RungVerdict::kStop;
        REQUIRE(store.reports().AppendDecision({trial.value(), d}).ok());
      }
    }
    REQUIRE(
        store.trials()
            .Finish(trial.value(), {last == 4 ? core::TrialStatus::kCompleted
                                              : core::TrialStatus::kStopped,
                                    0, last == 4 ? "" : "rung", std::nullopt})
            .ok());
  }
  REQUIRE(store.Commit().ok());
  return id.value();
}

}  // namespace tuner::testing

#endif  // TUNER_TESTS_SERVER_VIEWS_EXPERIMENT_H_
