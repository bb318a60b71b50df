// LeaseTable: the leases table, which devices each attempt of a trial held
// and when.
#ifndef TUNER_STORAGE_LEASE_TABLE_H_
#define TUNER_STORAGE_LEASE_TABLE_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "core/result.h"
#include "storage/records.h"
#include "storage/sqlite.h"
#include "storage/write_batch.h"

namespace tuner::storage {

// Part of a TrialStore (TrialStore::leases()): its writes join the store's
// batch, and its reads see them. Not thread-safe, as the store.
class LeaseTable {
 public:
  // `db` and `batch` outlive the table.
  LeaseTable(Database& db, WriteBatch& batch) : db_(db), batch_(batch) {}

  // Records that an attempt holds devices from now on; returns the lease id.
  core::Result<int64_t> Open(const LeaseRecord& lease);
  // Records that the lease's devices were given back now (a lease given
  // back already keeps its time).
  core::Status Close(int64_t lease);
  // The lease a trial holds now (not given back), if any.
  core::Result<std::optional<LeaseRecord>> Held(core::TrialId trial);
  // Every lease of the experiment's trials, oldest first.
  core::Result<std::vector<LeaseRecord>> List(ExperimentId experiment);

 private:
  Database& db_;
  WriteBatch& batch_;
};

}  // namespace tuner::storage

#endif  // TUNER_STORAGE_LEASE_TABLE_H_
