#include "storage/schema.h"

#include <string>
#include <vector>

namespace tuner::storage {

namespace {

// Migration i brings the schema from version i to i + 1. Append only: a
// released migration is never edited.
const std::vector<const char*>& Migrations() {
  static const std::vector<const char*> kMigrations = {
      R"sql(
CREATE TABLE experiments (
  id          INTEGER PRIMARY KEY,
  name        TEXT NOT NULL UNIQUE,
  status      TEXT NOT NULL,           -- running | finished | interrupted
  metric      TEXT NOT NULL,
  mode        TEXT NOT NULL,           -- max | min
  time_attr   TEXT NOT NULL,
  max_t       REAL,
  config      TEXT NOT NULL,           -- the resolved config, JSON
  created_at  REAL NOT NULL,
  updated_at  REAL NOT NULL
);
CREATE TABLE trials (
  id            INTEGER PRIMARY KEY,   -- also the trial directory's name
  experiment_id INTEGER NOT NULL REFERENCES experiments(id),
  trial_index   INTEGER NOT NULL,      -- 0, 1, ... in suggestion order
  status        TEXT NOT NULL,         -- pending|running|completed|stopped|failed
  attempts      INTEGER NOT NULL DEFAULT 0,
  exit_code     INTEGER,               -- exit status, or -signal
  reason        TEXT NOT NULL DEFAULT '',
  last_time     REAL,
  last_value    REAL,
  best_value    REAL,
  created_at    REAL NOT NULL,
  started_at    REAL,
  ended_at      REAL,
  UNIQUE (experiment_id, trial_index)
);
CREATE TABLE params (
  trial_id  INTEGER NOT NULL REFERENCES trials(id),
  position  INTEGER NOT NULL,
  name      TEXT NOT NULL,
  kind      TEXT NOT NULL,             -- b | i | f | s
  value     ANY,
  PRIMARY KEY (trial_id, position)
) WITHOUT ROWID;
CREATE TABLE reports (
  trial_id   INTEGER NOT NULL REFERENCES trials(id),
  seq        INTEGER NOT NULL,         -- 1, 2, ... per trial
  time       REAL,                     -- time_attr, NULL if absent
  value      REAL,                     -- the objective, NULL if absent or NaN
  metrics    TEXT NOT NULL,            -- every metric of the line, JSON
  created_at REAL NOT NULL,
  PRIMARY KEY (trial_id, seq)
) WITHOUT ROWID;
CREATE TABLE decisions (
  id         INTEGER PRIMARY KEY,
  trial_id   INTEGER NOT NULL REFERENCES trials(id),
  rung       INTEGER NOT NULL,
  milestone  REAL NOT NULL,
  value      REAL,                     -- NULL for NaN
  rank       INTEGER NOT NULL,
  n          INTEGER NOT NULL,
  decision   TEXT NOT NULL,            -- continue | stop
  created_at REAL NOT NULL
);
CREATE INDEX decisions_by_trial ON decisions(trial_id);
CREATE INDEX trials_by_experiment ON trials(experiment_id, status);
)sql",
      // 2: brackets (async HyperBand) and the pause/promote verdicts.
      R"sql(
ALTER TABLE decisions ADD COLUMN bracket INTEGER NOT NULL DEFAULT 0;
-- UNIQUE (experiment_id, trial_index) indexes experiment_id already; the
-- status column only made every status change update one more index.
DROP INDEX trials_by_experiment;
)sql",
      // 3: device leases, one row per attempt that held devices.
      R"sql(
CREATE TABLE leases (
  id          INTEGER PRIMARY KEY,
  trial_id    INTEGER NOT NULL REFERENCES trials(id),
  attempt     INTEGER NOT NULL,
  kind        TEXT NOT NULL,             -- habana | neuron | cuda | cpu
  devices     TEXT NOT NULL,             -- ids, comma-separated ("4,5")
  cpus        TEXT NOT NULL DEFAULT '',  -- pinned CPUs ("0-11"), '' if none
  acquired_at REAL NOT NULL,
  released_at REAL                       -- NULL while held
);
CREATE INDEX leases_by_trial ON leases(trial_id);
)sql",
      // 4: what a restarted tuner needs to adopt running trials.
      R"sql(
ALTER TABLE trials ADD COLUMN shim_pid INTEGER;    -- its tuner-shim
ALTER TABLE trials ADD COLUMN shim_start INTEGER;  -- /proc start time
ALTER TABLE reports ADD COLUMN attempt INTEGER NOT NULL DEFAULT 1;
ALTER TABLE reports ADD COLUMN offset INTEGER;     -- stdout bytes read
)sql",
      // 5: a trial's retry budgets spent, for a restarted tuner.
      R"sql(
ALTER TABLE trials ADD COLUMN failures INTEGER NOT NULL DEFAULT 0;
ALTER TABLE trials ADD COLUMN device_retries INTEGER NOT NULL DEFAULT 0;
)sql",
      // 6: why an experiment failed (an error inside the tuner).
      R"sql(
ALTER TABLE experiments ADD COLUMN reason TEXT NOT NULL DEFAULT '';
)sql",
      // 7: the experiment life cycle: the trial budget `tuner extend`
      // raised, and the files a `tuner delete` has still to remove.
      R"sql(
ALTER TABLE experiments ADD COLUMN num_trials INTEGER;  -- NULL: the config's
CREATE TABLE doomed_paths (
  path       TEXT PRIMARY KEY,
  experiment TEXT NOT NULL,
  created_at REAL NOT NULL
);
)sql",
      // 8: queries that stay instant at a million trials. Per-status counts
      // kept by triggers (until 11), and indexes in BestTrials' kLast orders
      // (storage/best_order.h; one for both modes since 12). kBest
      // has none: two more indexes made a sweep's writes 2.5 times slower.
      R"sql(
CREATE TABLE trial_counts (
  experiment_id INTEGER NOT NULL,
  status        TEXT NOT NULL,
  n             INTEGER NOT NULL,
  PRIMARY KEY (experiment_id, status)
) WITHOUT ROWID;
INSERT INTO trial_counts
  SELECT experiment_id, status, COUNT(*) FROM trials
  GROUP BY experiment_id, status;
CREATE TRIGGER trial_counts_insert AFTER INSERT ON trials BEGIN
  INSERT INTO trial_counts VALUES (NEW.experiment_id, NEW.status, 1)
    ON CONFLICT (experiment_id, status) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER trial_counts_update AFTER UPDATE OF status, experiment_id
  ON trials
  WHEN OLD.status IS NOT NEW.status
    OR OLD.experiment_id IS NOT NEW.experiment_id BEGIN
  UPDATE trial_counts SET n = n - 1
    WHERE experiment_id = OLD.experiment_id AND status = OLD.status;
  INSERT INTO trial_counts VALUES (NEW.experiment_id, NEW.status, 1)
    ON CONFLICT (experiment_id, status) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER trial_counts_delete AFTER DELETE ON trials BEGIN
  UPDATE trial_counts SET n = n - 1
    WHERE experiment_id = OLD.experiment_id AND status = OLD.status;
END;
CREATE TRIGGER trial_counts_drop AFTER DELETE ON experiments BEGIN
  DELETE FROM trial_counts WHERE experiment_id = OLD.id;
END;
CREATE INDEX trials_best_last_max ON trials (experiment_id,
  (abs(last_value) <= 1.7976931348623157e308) DESC,
  (abs(last_time) <= 1.7976931348623157e308) DESC,
  last_time DESC, last_value DESC, id) WHERE last_value IS NOT NULL;
CREATE INDEX trials_best_last_min ON trials (experiment_id,
  (abs(last_value) <= 1.7976931348623157e308) DESC,
  (abs(last_time) <= 1.7976931348623157e308) DESC,
  last_time DESC, last_value ASC, id) WHERE last_value IS NOT NULL;
)sql",
      // 9: trials on a cluster (docs/slurm.md): the node of each lease, and
      // the Slurm allocation an experiment runs in (booked: by the tuner,
      // which releases it at the end).
      R"sql(
ALTER TABLE leases ADD COLUMN node TEXT NOT NULL DEFAULT '';
ALTER TABLE experiments ADD COLUMN cluster_job TEXT NOT NULL DEFAULT '';
ALTER TABLE experiments ADD COLUMN cluster_booked INTEGER NOT NULL DEFAULT 0;
)sql",
      // 10: when a trial's process ended, as its shim saw it, where that is
      // before the row's `ended_at` (when a tuner recorded the end: later
      // for a trial that ended while no tuner ran).
      R"sql(
ALTER TABLE trials ADD COLUMN exited_at REAL;
)sql",
      // 11: trial_counts kept by the writer (storage/trial_counts.h), a few
      // rows per transaction instead of a trigger per status change; every
      // build that writes this schema keeps them.
      R"sql(
DROP TRIGGER trial_counts_insert;
DROP TRIGGER trial_counts_update;
DROP TRIGGER trial_counts_delete;
DROP TRIGGER trial_counts_drop;
DELETE FROM trial_counts;
INSERT INTO trial_counts
  SELECT experiment_id, status, COUNT(*) FROM trials
  GROUP BY experiment_id, status;
)sql",
      // 12: one index for BestTrials' kLast order in both modes, on
      // last_key: last_value signed so that ascending is best first
      // (-last_value in max mode). Each report's update wrote two indexes.
      // And pages set aside for the writes after a full disk
      // (TrialStore::ReleaseReserve).
      R"sql(
CREATE TABLE reserve (id INTEGER PRIMARY KEY, pad BLOB NOT NULL);
ALTER TABLE trials ADD COLUMN last_key REAL;
UPDATE trials SET last_key = CASE (SELECT mode FROM experiments
    WHERE experiments.id = trials.experiment_id)
  WHEN 'max' THEN -last_value ELSE last_value END
  WHERE last_value IS NOT NULL;
DROP INDEX trials_best_last_max;
DROP INDEX trials_best_last_min;
CREATE INDEX trials_best_last ON trials (experiment_id,
  (abs(last_key) <= 1.7976931348623157e308) DESC,
  (abs(last_time) <= 1.7976931348623157e308) DESC,
  last_time DESC, last_key, id) WHERE last_key IS NOT NULL;
)sql",
      // 13: the leaderboard (storage/leaderboard.h) instead of an index of
      // every trial: each report's update inserted into that index at a
      // random place, so each commit wrote most of its pages again. Now
      // only a short prefix of the ranking is indexed: the trials with
      // contender = 1, kept by the writer, board_size of them;
      // board_complete says that every trial with a value is on the board.
      R"sql(
ALTER TABLE trials ADD COLUMN contender INTEGER NOT NULL DEFAULT 0;
ALTER TABLE experiments ADD COLUMN board_size INTEGER NOT NULL DEFAULT 0;
ALTER TABLE experiments ADD COLUMN board_complete INTEGER NOT NULL DEFAULT 1;
DROP INDEX trials_best_last;
UPDATE trials SET contender = 1 WHERE id IN (
  SELECT id FROM (SELECT id, row_number() OVER (PARTITION BY experiment_id
      ORDER BY (abs(last_key) <= 1.7976931348623157e308) DESC,
        (abs(last_time) <= 1.7976931348623157e308) DESC,
        last_time DESC, last_key, id) AS place
    FROM trials WHERE last_key IS NOT NULL)
  WHERE place <= 128);
UPDATE experiments SET
  board_size = (SELECT count(*) FROM trials
    WHERE experiment_id = experiments.id AND contender = 1),
  board_complete = NOT EXISTS (SELECT 1 FROM trials
    WHERE experiment_id = experiments.id AND last_key IS NOT NULL
      AND contender = 0);
CREATE INDEX trials_board ON trials (experiment_id,
  (abs(last_key) <= 1.7976931348623157e308) DESC,
  (abs(last_time) <= 1.7976931348623157e308) DESC,
  last_time DESC, last_key, id) WHERE contender = 1;
)sql",
      // 14: trial_counts without a row for running trials: a row with the
      // status 'all' counts every trial, and the running ones are 'all'
      // less the others (storage/trial_counts.h). A launch then changes one
      // row and an end one, where each changed two. Counted again from the
      // trials, as migration 11 did.
      R"sql(
DELETE FROM trial_counts;
INSERT INTO trial_counts
  SELECT experiment_id, status, COUNT(*) FROM trials
  WHERE status != 'running' GROUP BY experiment_id, status;
INSERT INTO trial_counts
  SELECT experiment_id, 'all', COUNT(*) FROM trials GROUP BY experiment_id;
)sql",
  };
  return kMigrations;
}

core::Result<int> UserVersion(Database& db) {
  auto stmt = db.Prepare("PRAGMA user_version");
  if (!stmt.ok()) return stmt.error();
  auto row = stmt.value().Step();
  if (!row.ok()) return row.error();
  return static_cast<int>(stmt.value().Int(0));
}

core::Status CheckNotNewer(int version) {
  if (version <= CurrentSchemaVersion()) return core::Status::Ok();
  return core::InvalidArgument(
      "database schema version " + std::to_string(version) +
      " is newer than this tuner supports (" +
      std::to_string(CurrentSchemaVersion()) + "); upgrade the tuner");
}

}  // namespace

int CurrentSchemaVersion() { return static_cast<int>(Migrations().size()); }

core::Status Migrate(Database& db) {
  auto version = UserVersion(db);
  if (!version.ok()) return version.status();
  TUNER_RETURN_IF_ERROR(CheckNotNewer(version.value()));
  if (version.value() == CurrentSchemaVersion()) return core::Status::Ok();
  // Another process may be migrating this file right now: the version is
  // read again under the write lock, so only one of them migrates.
  TUNER_RETURN_IF_ERROR(db.ExecuteRetrying("BEGIN IMMEDIATE"));
  auto locked = UserVersion(db);
  core::Status status =
      locked.ok() ? CheckNotNewer(locked.value()) : locked.status();
  for (int v = locked.ok() ? locked.value() : 0;
       status.ok() && v < CurrentSchemaVersion(); ++v) {
    status = db.Execute(Migrations()[v]);
    if (status.ok()) {
      status = db.Execute("PRAGMA user_version = " + std::to_string(v + 1));
    }
    if (!status.ok()) {
      status = core::IoError("schema migration " + std::to_string(v + 1) +
                             " failed: " + status.message());
    }
  }
  if (status.ok()) status = db.ExecuteRetrying("COMMIT");
  if (!status.ok() && db.InTransaction()) (void)db.Execute("ROLLBACK");
  return status;
}

}  // namespace tuner::storage
