// Several connections (standing for several processes) on one database
// file: opening it, its busy policy, and when a store holds the write lock.
#include <sqlite3.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <future>
#include <mutex>
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
  e.status = core::ExperimentStatus::kRunning;
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

// Counts the times a connection is refused the WAL write lock (lock 0 of
// the shared memory, which BEGIN IMMEDIATE takes), by wrapping the default
// VFS for as long as it lives. Connections opened meanwhile must close
// before it goes: they keep a pointer to its VFS.
class WriteLockRefusals {
 public:
  WriteLockRefusals()
      : real_vfs_(sqlite3_vfs_find(nullptr)), vfs_{*real_vfs_, this} {
    vfs_.base.zName = "tuner-test-write-lock-refusals";
    vfs_.base.xOpen = &Open;
    REQUIRE(sqlite3_vfs_register(&vfs_.base, 1) == SQLITE_OK);
  }
  ~WriteLockRefusals() {
    sqlite3_vfs_register(real_vfs_, 1);
    sqlite3_vfs_unregister(&vfs_.base);
  }
  WriteLockRefusals(const WriteLockRefusals&) = delete;
  WriteLockRefusals& operator=(const WriteLockRefusals&) = delete;

  // Blocks until `n` refusals were counted, or Stop() was called.
  void Await(int n) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return count_ >= n || stopped_; });
  }
  // Ends every Await(), now and later.
  void Stop() {
    std::lock_guard<std::mutex> lock(mutex_);
    stopped_ = true;
    changed_.notify_all();
  }
  int count() {
    std::lock_guard<std::mutex> lock(mutex_);
    return count_;
  }

 private:
  // Standard layout, `base` first: SQLite's pointers to `base` lead back
  // here.
  struct Vfs {
    sqlite3_vfs base;
    WriteLockRefusals* owner;
  };
  struct Methods {
    sqlite3_io_methods base;
    WriteLockRefusals* owner;
    const sqlite3_io_methods* real;
  };

  // Opens with the real VFS; a main database file's methods are then ours.
  static int Open(sqlite3_vfs* vfs, const char* name, sqlite3_file* file,
                  int flags, int* out_flags) {
    WriteLockRefusals* self = reinterpret_cast<Vfs*>(vfs)->owner;
    int rc =
        self->real_vfs_->xOpen(self->real_vfs_, name, file, flags, out_flags);
    if (rc == SQLITE_OK && (flags & SQLITE_OPEN_MAIN_DB) && file->pMethods) {
      std::lock_guard<std::mutex> lock(self->mutex_);
      if (self->methods_.real == nullptr) {
        self->methods_ = Methods{*file->pMethods, self, file->pMethods};
        self->methods_.base.xShmLock = &ShmLock;
      }
      if (file->pMethods == self->methods_.real) {
        file->pMethods = &self->methods_.base;
      }
    }
    return rc;
  }

  static int ShmLock(sqlite3_file* file, int offset, int n, int flags) {
    const Methods* methods = reinterpret_cast<const Methods*>(file->pMethods);
    int rc = methods->real->xShmLock(file, offset, n, flags);
    if (rc == SQLITE_BUSY && offset == 0 && (flags & SQLITE_SHM_EXCLUSIVE)) {
      std::lock_guard<std::mutex> lock(methods->owner->mutex_);
      ++methods->owner->count_;
      methods->owner->changed_.notify_all();
    }
    return rc;
  }

  sqlite3_vfs* real_vfs_;
  Vfs vfs_;
  Methods methods_{};
  std::mutex mutex_;
  std::condition_variable changed_;
  int count_ = 0;
  bool stopped_ = false;
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
        auto id = store.value()->experiments().Create(
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
    CHECK(reader->experiments().List().value().size() == kOpeners);
    CHECK(reader->IntegrityCheck().value() == "ok");
  }
}

TEST_CASE("a write waits out another writer for the policy's total time",
          "[storage][concurrency]") {
  WriteLockRefusals refusals;  // outlives the connections below
  std::string path = FreshPath("tuner.db");
  auto store = TrialStore::Open(path).value();
  // SQLite's own wait (statement_wait) is far shorter than the other
  // writer's transaction, which it holds until the store was refused the
  // lock kRefused times, more than one statement's busy handler tries with
  // a 1 ms wait: only the retries with backoff get the write in.
  constexpr int kRefused = 10;
  store->SetBusyPolicy(BusyPolicy{milliseconds(1), milliseconds(60000)});
  std::promise<void> holding;
  std::thread other([&] {
    LockHolder holder(path);
    holding.set_value();
    refusals.Await(kRefused);
    holder.Release();
  });
  holding.get_future().wait();
  auto id = store->experiments().Create(Experiment("waited"));
  refusals.Stop();  // the write returned: the holder waits no more
  other.join();
  CHECK(refusals.count() >= kRefused);
  INFO((id.ok() ? "" : id.message()));
  REQUIRE(id.ok());
  REQUIRE(store->Commit().ok());
  CHECK(store->experiments().Find("waited").value().has_value());
}

TEST_CASE("a write that cannot take the lock fails and holds nothing",
          "[storage][concurrency]") {
  std::string path = FreshPath("tuner.db");
  auto store = TrialStore::Open(path).value();
  store->SetBusyPolicy(BusyPolicy{milliseconds(1), milliseconds(20)});
  LockHolder holder(path);
  auto id = store->experiments().Create(Experiment("blocked"));
  REQUIRE_FALSE(id.ok());
  CHECK(id.message().find("database is locked") != std::string::npos);
  CHECK_FALSE(store->InTransaction());
  holder.Release();
  // The lock is free again: the store writes as if nothing had happened.
  REQUIRE(store->experiments().Create(Experiment("later")).ok());
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
  auto experiment = first->experiments().Create(Experiment("first")).value();
  REQUIRE(first->Commit().ok());
  CHECK_FALSE(first->InTransaction());
  // Reads take no lock.
  REQUIRE(first->trials().List(experiment).ok());
  CHECK_FALSE(first->InTransaction());
  REQUIRE(second->experiments().Create(Experiment("second")).ok());
  REQUIRE(second->Commit().ok());

  REQUIRE(first->trials().Add(experiment, 0, {{"lr", 0.1}}).ok());
  CHECK(first->InTransaction());
  CHECK_FALSE(second->experiments().Create(Experiment("third")).ok());
  REQUIRE(first->Commit().ok());
  REQUIRE(second->experiments().Create(Experiment("third")).ok());
  REQUIRE(second->Commit().ok());
  CHECK(first->experiments().List().value().size() == 3);
}

}  // namespace
}  // namespace tuner::storage
