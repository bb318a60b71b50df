// TrialStore's life cycle: trial budgets and deleting an experiment's rows.
#include <string>
#include <vector>

#include "storage/trial_store.h"
#include "tests/catch.h"

namespace tuner::storage {
namespace {

ExperimentId AddExperiment(TrialStore& store, const std::string& name) {
  ExperimentRecord e;
  e.name = name;
  e.status = core::ExperimentStatus::kRunning;
  e.metric = "acc";
  e.time_attr = "epoch";
  e.config_json = "{}";
  auto id = store.experiments().Create(e);
  REQUIRE(id.ok());
  return id.value();
}

// A trial with a param, a report, a decision and a lease.
void AddFullTrial(TrialStore& store, ExperimentId experiment, int64_t index) {
  auto trial = store.trials().Add(experiment, index, {{"lr", 0.1}});
  REQUIRE(trial.ok());
  ReportRecord report;
  report.trial = trial.value();
  report.seq = 1;
  report.time = 1;
  report.value = 0.5;
  REQUIRE(store.reports().Append(report, core::Mode::kMax).ok());
  DecisionRecord decision;
  decision.trial = trial.value();
  REQUIRE(store.reports().AppendDecision(decision).ok());
  LeaseRecord lease;
  lease.trial = trial.value();
  lease.attempt = 1;
  lease.kind = "cpu";
  lease.devices = "0";
  REQUIRE(store.leases().Open(lease).ok());
}

int64_t Count(TrialStore& store, ExperimentId id) {
  auto counts = store.trials().Count(id);
  REQUIRE(counts.ok());
  int64_t n = 0;
  for (const auto& [status, count] : counts.value()) n += count;
  return n;
}

TEST_CASE("a trial budget is the config's until extended, then stored",
          "[storage][lifecycle]") {
  auto store = TrialStore::Open(":memory:").value();
  ExperimentId id = AddExperiment(*store, "e");
  REQUIRE(store->Commit().ok());
  CHECK_FALSE(store->experiments().TrialBudget(id).value());
  CHECK(store->experiments().ExtendTrialBudget(id, 8, 4, 100).value() == 12);
  REQUIRE(store->Commit().ok());
  CHECK(store->experiments().TrialBudget(id).value() ==
        std::optional<int64_t>(12));
  // From the stored budget now, not the config's.
  CHECK(store->experiments().ExtendTrialBudget(id, 8, 1, 100).value() == 13);
  auto over = store->experiments().ExtendTrialBudget(id, 8, 88, 100);
  CHECK(over.error().code == core::ErrorCode::kInvalidArgument);
  REQUIRE(store->Commit().ok());
  CHECK(store->experiments().TrialBudgetLocked(id).value() ==
        std::optional<int64_t>(13));
  REQUIRE(store->Commit().ok());
}

TEST_CASE("deleting an experiment removes its rows in every table only",
          "[storage][lifecycle]") {
  auto store = TrialStore::Open(":memory:").value();
  ExperimentId gone = AddExperiment(*store, "gone");
  ExperimentId kept = AddExperiment(*store, "kept");
  for (int i = 0; i < 3; ++i) AddFullTrial(*store, gone, i);
  AddFullTrial(*store, kept, 0);
  REQUIRE(store->Commit().ok());
  auto kept_trials = store->trials().List(kept).value();
  REQUIRE(store->DeleteExperiment(gone, "gone", {"/x/a", "/x/b"}).ok());
  REQUIRE(store->Commit().ok());
  CHECK_FALSE(store->experiments().Find("gone").value());
  CHECK(Count(*store, gone) == 0);
  CHECK(store->reports().ListDecisions(gone).value().empty());
  CHECK(store->leases().List(gone).value().empty());
  CHECK(store->reports().ListCurves(gone).value().empty());
  // Nothing of the other experiment went with it.
  CHECK(store->experiments().Find("kept").value());
  CHECK(store->trials().List(kept).value().size() == 1);
  CHECK(store->reports().List(kept_trials[0].id).value().size() == 1);
  CHECK(store->reports().ListDecisions(kept).value().size() == 1);
  CHECK(store->leases().List(kept).value().size() == 1);
  CHECK(store->trials().List(kept).value()[0].params == kept_trials[0].params);
  // The files are remembered until forgotten one by one.
  CHECK(store->experiments().DoomedPaths("gone").value() ==
        std::vector<std::string>{"/x/a", "/x/b"});
  CHECK(store->experiments().DoomedPaths("kept").value().empty());
  REQUIRE(store->experiments().ForgetDoomedPath("/x/a").ok());
  REQUIRE(store->Commit().ok());
  CHECK(store->experiments().DoomedPaths("gone").value() ==
        std::vector<std::string>{"/x/b"});
}

}  // namespace
}  // namespace tuner::storage
