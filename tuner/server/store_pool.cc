#include "tuner/server/store_pool.h"

namespace tuner::server {

core::Result<StorePool::Borrowed> StorePool::Borrow() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!idle_.empty()) {
      auto store = std::move(idle_.back());
      idle_.pop_back();
      return Borrowed(*this, std::move(store));
    }
  }
  auto store = storage::TrialStore::OpenReadOnly(db_path_);
  if (!store.ok()) return store.error();
  return Borrowed(*this, std::move(store).value());
}

void StorePool::Return(std::unique_ptr<storage::TrialStore> store) {
  std::lock_guard<std::mutex> lock(mutex_);
  idle_.push_back(std::move(store));
}

}  // namespace tuner::server
