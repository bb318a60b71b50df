// The database schema and its versioned migrations.
#ifndef TUNER_STORAGE_SCHEMA_H_
#define TUNER_STORAGE_SCHEMA_H_

#include "storage/sqlite.h"
#include "tuner/core/result.h"

namespace tuner::storage {

// The schema version this build writes (PRAGMA user_version).
int CurrentSchemaVersion();

// Brings the schema of `db` up to CurrentSchemaVersion(), one migration per
// transaction. Fails, changing nothing, on a database written by a newer build.
core::Status Migrate(Database& db);

}  // namespace tuner::storage

#endif  // TUNER_STORAGE_SCHEMA_H_
