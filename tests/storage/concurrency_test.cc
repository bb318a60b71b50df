// Several connections (standing for several processes) on one database
// file: opening it, its busy policy, and when a store holds the write lock.
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "storage/schema.h"
#include "storage/trial_store.h"
#include "tests/catch.h"

namespace tuner::storage {
namespace {

using std::chrono::milliseconds;

ExperimentRecord Experiment(const std::string& name) {
  ExperimentRecord e;
  e.name = name;
  e.status = "running";
  e.metric = "acc";
  e.mode = core::Mode::kMax;
  e.time_attr = "epoch";
  e.config_json = "{}";
  return e;
}

// A database path in a fresh temporary directory.
std::string FreshPath(const std::string& name) {
  static int counter = 0;
  auto dir = std::filesystem::temp_directory_path() /
             ("tuner-concurrency-" + std::to_string(getpid()) + "-" +
              std::to_string(counter++));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

// Another connection that takes the write lock and holds it until
// Release(): what a second tuner does while it commits.
class LockHolder {
 public:
  explicit LockHolder(const std::string& path)
      : db_(Database::Open(path, false).value()) {
    REQUIRE(db_->Execute("BEGIN IMMEDIATE").ok());
  }
  void Release() { REQUIRE(db_->Execute("ROLLBACK").ok()); }

 private:
  std::unique_ptr<Database> db_;
};

int UserVersion(const std::string& path) {
  auto db = Database::Open(path, true).value();
  auto stmt = db->Prepare("PRAGMA user_version").value();
  REQUIRE(stmt.Step().value());
  return static_cast<int>(stmt.Int(0));
}

TEST_CASE("connections opening a fresh database at once all succeed",
          "[storage][concurrency]") {
  constexpr int kOpeners = 8;
  for (int round = 0; round < 5; ++round) {
    std::string path = FreshPath("tuner.db");
    std::promise<void> go;
    std::shared_future<void> start = go.get_future().share();
    std::vector<std::future<std::string>> results;
    for (int i = 0; i < kOpeners; ++i) {
      results.push_back(std::async(std::launch::async, [&, i] {
        start.wait();
        auto store = TrialStore::Open(path);
        if (!store.ok()) return store.message();
        auto id = store.value()->CreateExperiment(
            Experiment("e" + std::to_string(i)));
        if (!id.ok()) return id.message();
        auto committed = store.value()->Commit();
        return committed.ok() ? std::string("ok") : committed.message();
      }));
    }
    go.set_value();
    for (auto& result : results) CHECK(result.get() == "ok");
    CHECK(UserVersion(path) == CurrentSchemaVersion());
    auto reader = TrialStore::OpenReadOnly(path).value();
    CHECK(reader->ListExperiments().value().size() == kOpeners);
    CHECK(reader->IntegrityCheck().value() == "ok");
  }
}

TEST_CASE("a write waits out another writer for the policy's total time",
          "[storage][concurrency]") {
  std::string path = FreshPath("tuner.db");
  auto store = TrialStore::Open(path).value();
  // SQLite's own wait (statement_wait) is far shorter than the other
  // writer's transaction: only the retries with backoff get the write in.
  store->SetBusyPolicy(BusyPolicy{milliseconds(1), milliseconds(60000)});
  std::promise<void> holding;
  std::thread other([&] {
    LockHolder holder(path);
    holding.set_value();
    std::this_thread::sleep_for(milliseconds(300));
    holder.Release();
  });
  holding.get_future().wait();
  auto id = store->CreateExperiment(Experiment("waited"));
  other.join();
  INFO((id.ok() ? "" : id.message()));
  REQUIRE(id.ok());
  REQUIRE(store->Commit().ok());
  CHECK(store->FindExperiment("waited").value().has_value());
}

TEST_CASE("a write that cannot take the lock fails and holds nothing",
          "[storage][concurrency]") {
  std::string path = FreshPath("tuner.db");
  auto store = TrialStore::Open(path).value();
  store->SetBusyPolicy(BusyPolicy{milliseconds(1), milliseconds(20)});
  LockHolder holder(path);
  auto id = store->CreateExperiment(Experiment("blocked"));
  REQUIRE_FALSE(id.ok());
  CHECK(id.message().find("database is locked") != std::string::npos);
  CHECK_FALSE(store->InTransaction());
  holder.Release();
  // The lock is free again: the store writes as if nothing had happened.
  REQUIRE(store->CreateExperiment(Experiment("later")).ok());
  CHECK(store->InTransaction());
  REQUIRE(store->Commit().ok());
  CHECK_FALSE(store->InTransaction());
}

TEST_CASE("a batch holds the write lock until Commit() and no longer",
          "[storage][concurrency]") {
  std::string path = FreshPath("tuner.db");
  auto first = TrialStore::Open(path).value();
  auto second = TrialStore::Open(path).value();
  second->SetBusyPolicy(BusyPolicy{milliseconds(0), milliseconds(0)});
  auto experiment = first->CreateExperiment(Experiment("first")).value();
  REQUIRE(first->Commit().ok());
  CHECK_FALSE(first->InTransaction());
  // Reads take no lock.
  REQUIRE(first->ListTrials(experiment).ok());
  CHECK_FALSE(first->InTransaction());
  REQUIRE(second->CreateExperiment(Experiment("second")).ok());
  REQUIRE(second->Commit().ok());

  REQUIRE(first->AddTrial(experiment, 0, {{"lr", 0.1}}).ok());
  CHECK(first->InTransaction());
  CHECK_FALSE(second->CreateExperiment(Experiment("third")).ok());
  REQUIRE(first->Commit().ok());
  REQUIRE(second->CreateExperiment(Experiment("third")).ok());
  REQUIRE(second->Commit().ok());
  CHECK(first->ListExperiments().value().size() == 3);
}

}  // namespace
}  // namespace tuner::storage
