// The database schema and its versioned migrations.
#ifndef TUNER_STORAGE_SCHEMA_H_
#define TUNER_STORAGE_SCHEMA_H_

#include "core/result.h"
#include "storage/sqlite.h"

namespace tuner::storage {

// The schema version this build writes (PRAGMA user_version).
int CurrentSchemaVersion();

// Brings the schema of `db` up to CurrentSchemaVersion() in one transaction
// that reads the version under the write lock (BEGIN IMMEDIATE, retried per
// the busy policy), so processes opening a fresh file at once migrate it
// exactly once. Fails, changing nothing, on a database written by a newer
// build.
core::Status Migrate(Database& db);

}  // namespace tuner::storage

#endif  // TUNER_STORAGE_SCHEMA_H_
