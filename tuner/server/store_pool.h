// StorePool: read-only connections to the database for the HTTP threads.
#ifndef TUNER_TUNER_SERVER_STORE_POOL_H_
#define TUNER_TUNER_SERVER_STORE_POOL_H_

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/result.h"
#include "storage/trial_store.h"

namespace tuner::server {

// Hands each request a read-only TrialStore of its own (SQLite connections
// are not shared between threads); WAL readers never block the sweeps'
// writer. Thread-safe.
class StorePool {
 public:
  explicit StorePool(std::string db_path) : db_path_(std::move(db_path)) {}

  class Borrowed {
   public:
    Borrowed(StorePool& pool, std::unique_ptr<storage::TrialStore> store)
        : pool_(pool), store_(std::move(store)) {}
    Borrowed(Borrowed&&) = default;
    ~Borrowed() {
      if (store_) pool_.Return(std::move(store_));
    }
    storage::TrialStore& operator*() { return *store_; }
    storage::TrialStore* operator->() { return store_.get(); }

   private:
    StorePool& pool_;
    std::unique_ptr<storage::TrialStore> store_;
  };

  core::Result<Borrowed> Borrow();
  const std::string& db_path() const { return db_path_; }

 private:
  void Return(std::unique_ptr<storage::TrialStore> store);

  std::string db_path_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<storage::TrialStore>> idle_;
};

}  // namespace tuner::server

#endif  // TUNER_TUNER_SERVER_STORE_POOL_H_
