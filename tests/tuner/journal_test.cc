// Journal: a sweep's writes, when they are committed, and its failures.
#include "tuner/sweep/journal.h"

#include <boost/asio/io_context.hpp>
#include <optional>
#include <string>
#include <vector>

#include "storage/trial_store.h"
#include "tests/catch.h"

namespace tuner::testing {
namespace {

struct Desk {
  Desk() : store(storage::TrialStore::Open(":memory:").value()) {
    journal.emplace(io, *store, [this](const std::string& why) {
      failures.push_back(why);
    });
    storage::ExperimentRecord record;
    record.name = "j";
    record.status = core::ExperimentStatus::kRunning;
    record.metric = "acc";
    auto id = journal->CreateExperiment(record, {});
    REQUIRE(id.ok());
    experiment = id.value();
    trial = journal->AddTrial(experiment, 0, {}).value();
  }
  storage::ReportRecord Report(int64_t seq) {
    return {trial, seq, double(seq), 0.5, {{"acc", 0.5}}, 1, seq * 10};
  }
  boost::asio::io_context io;
  std::unique_ptr<storage::TrialStore> store;
  std::optional<Journal> journal;
  std::vector<std::string> failures;
  storage::ExperimentId experiment = 0;
  core::TrialId trial = 0;
};

TEST_CASE("a burst of reports shares one commit, posted after the burst",
          "[tuner][sweep][journal]") {
  Desk d;
  d.io.restart();
  d.io.poll();  // the trial's add
  CHECK_FALSE(d.store->InTransaction());
  REQUIRE(d.journal->AppendReport(d.Report(1), core::Mode::kMax));
  REQUIRE(d.journal->AppendReport(d.Report(2), core::Mode::kMax));
  CHECK(d.store->InTransaction());  // held until the handler returns
  d.io.restart();
  CHECK(d.io.poll() == 1);  // one commit for both
  CHECK_FALSE(d.store->InTransaction());
  CHECK(d.store->reports().List(d.trial).value().size() == 2);
  CHECK(d.failures.empty());
}

TEST_CASE("a launch is committed before the journal returns",
          "[tuner][sweep][journal]") {
  Desk d;
  storage::LeaseRecord lease;
  lease.trial = d.trial;
  lease.attempt = 1;
  lease.kind = "cpu";
  lease.devices = "0";
  auto row = d.journal->Launched(lease);
  REQUIRE(row);
  CHECK_FALSE(d.store->InTransaction());
  auto held = d.store->leases().Held(d.trial);
  REQUIRE(held.ok());
  REQUIRE(held.value());
  CHECK(held.value()->id == *row);
}

TEST_CASE(
    "a journal destroyed mid-batch commits it, and its posted commit "
    "does nothing",
    "[tuner][sweep][journal]") {
  Desk d;
  REQUIRE(d.journal->AppendReport(d.Report(1), core::Mode::kMax));
  d.journal.reset();
  CHECK_FALSE(d.store->InTransaction());
  d.io.restart();
  d.io.poll();  // the stale post
  CHECK(d.store->reports().List(d.trial).value().size() == 1);
}

TEST_CASE("every storage failure is told, with what failed",
          "[tuner][sweep][journal]") {
  Desk d;
  CHECK(d.journal->Note(core::Status::Ok()));
  CHECK_FALSE(d.journal->failed());
  CHECK_FALSE(d.journal->Note(core::Status(core::Internal("disk full"))));
  CHECK_FALSE(d.journal->Note(core::Status(core::Internal("still full"))));
  CHECK(d.journal->failed());
  CHECK(d.failures == std::vector<std::string>{"disk full", "still full"});
}

}  // namespace
}  // namespace tuner::testing
