// A thin RAII layer over the SQLite C API.
#ifndef TUNER_STORAGE_SQLITE_H_
#define TUNER_STORAGE_SQLITE_H_

#include <sqlite3.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace tuner::storage {

class Statement;

// How long a connection waits for another connection's lock.
//
// Every statement gets SQLite's busy handler for `statement_wait` (SQLite
// sleeps and retries inside the call). Statements that take the write lock
// or end a transaction (BEGIN IMMEDIATE, COMMIT, the journal-mode switch)
// are run by ExecuteRetrying(), which also retries the SQLITE_BUSY answers
// that SQLite gives without calling its busy handler (a WAL being
// recovered, a concurrent journal-mode switch), with a backoff from 2 ms
// doubling up to 100 ms, until `total` has passed since the first try.
// Writers in this project hold the lock for milliseconds (see
// storage/trial_store.h), so only a writer that holds it for a very long
// time, or forever, makes a call fail: after `total`, with "database is
// locked".
struct BusyPolicy {
  std::chrono::milliseconds statement_wait{5000};
  std::chrono::milliseconds total{30000};
};

// One connection. Not thread-safe: use it from one thread at a time.
//
// SQLite maps the -shm file of a WAL database and writes that memory even
// to read: if the file turns read-only or immutable (chattr +i) under a
// running connection, its next access is a SIGBUS. So each transaction
// (an explicit BEGIN and COMMIT, or a statement outside one) first checks
// that the -shm file, if writable when the connection opened, still is
// (CheckFiles). The database and -wal files are written by system calls,
// which fail instead: a write that fails checks them all (WriteError), and
// so does a checkpoint that fails (the only writes of the database file in
// WAL mode; a writer runs one after a commit past kCheckpointFrames).
// Once one is found not writable, every statement fails with an error
// naming the file, and closing skips the checkpoint (which would write it).
class Database {
 public:
  // Opens (read-only: never creates) the database at `path`. A read-write
  // connection to a file, -wal or -shm that this process may not write is
  // an error.
  static core::Result<std::unique_ptr<Database>> Open(const std::string& path,
                                                      bool read_only);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  // Runs one or more statements without results.
  core::Status Execute(std::string_view sql);
  // One statement, retried on SQLITE_BUSY (and SQLITE_LOCKED) per the busy
  // policy, and prepared once per connection. For statements that may run
  // again whole: BEGIN IMMEDIATE, COMMIT, PRAGMA journal_mode.
  core::Status ExecuteRetrying(std::string_view sql);
  void set_busy_policy(const BusyPolicy& policy);
  const BusyPolicy& busy_policy() const { return busy_; }
  // What `$now` binds to: Unix seconds. Empty (the default): the system
  // clock. A simulation sets its simulated time.
  void set_time_source(std::function<double()> now) { now_ = std::move(now); }
  double NowSeconds() const;
  // True while a transaction is open on this connection.
  bool InTransaction() const;
  // A number that changes whenever the main database changes, by this
  // connection's commits or any other's (SQLITE_FCNTL_DATA_VERSION). Read
  // right after BEGIN, it says whether anyone committed since it was last
  // read after a commit of ours.
  uint32_t DataVersion();
  core::Result<Statement> Prepare(std::string_view sql);
  int64_t LastInsertRowId() const;
  // Rows the last INSERT, UPDATE or DELETE changed.
  int64_t Changes() const;
  // The error text of the last failed call, prefixed with `what`.
  core::Error LastError(std::string_view what) const;
  sqlite3* handle() { return db_; }
  // OK while the -shm file, if writable at Open, still is; else an error
  // naming the database and the file (and from then on, always that
  // error, as CheckAllFiles).
  core::Status CheckFiles();
  // As CheckFiles, for every file of the database writable at Open.
  core::Status CheckAllFiles();
  // The error of a failed statement: that a file of the database is no
  // longer writable (CheckAllFiles) where one is, else SQLite's message.
  core::Error WriteError();

 private:
  // SQLite's own automatic checkpoint threshold, in WAL frames.
  static constexpr int kCheckpointFrames = 1000;

  Database(sqlite3* db, std::string path);
  // SQLite's WAL hook: after a commit that left `frames` in the WAL,
  // checkpoints as SQLite would; one that fails checks every file.
  static int AfterWalCommit(void* database, sqlite3* db, const char* schema,
                            int frames);
  // Runs one statement (its rows, if any, ignored), prepared once per
  // connection and kept; `code` gets SQLite's extended result code.
  core::Status ExecuteSaved(std::string_view sql, int* code);

  sqlite3* db_;
  std::map<std::string, sqlite3_stmt*, std::less<>> saved_;
  BusyPolicy busy_;
  std::string path_;                   // empty: in memory, nothing to check
  std::vector<std::string> writable_;  // its files writable at Open
  std::optional<std::string> shm_;     // the -shm file, if one of them
  std::optional<core::Error> lost_;    // set once one of them is not
  // Sets lost_ if `file` is not writable; returns the status it leaves.
  core::Status CheckFile(const std::string& file);
  std::function<double()> now_;  // empty: the system clock
};

// A prepared statement; it must not outlive the Database that prepared it.
// Bind indexes start at 1, column indexes at 0. `$now` in the SQL is bound
// to the Database's time (Unix seconds) each time the statement starts.
class Statement {
 public:
  // `now_index`: the parameter $now became, 0 if the SQL had none.
  Statement(sqlite3_stmt* stmt, Database* db, int now_index);
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&& other) noexcept;
  ~Statement();

  Statement& Bind(int index, int64_t value);
  Statement& Bind(int index, double value);  // NaN binds as NULL
  Statement& Bind(int index, std::string_view value);
  // The bytes of `value` as a BLOB, which no column affinity converts
  // ("010" stays "010" in a column of NUMERIC affinity); Text() reads it.
  Statement& BindBytes(int index, std::string_view value);
  // As Bind() and BindBytes(), without a copy: the bytes of `value` must
  // stay where they are, unchanged, until Reset() (Run() resets).
  Statement& BindUntilReset(int index, std::string_view value);
  Statement& BindBytesUntilReset(int index, std::string_view value);
  Statement& Bind(int index, std::optional<double> value);
  Statement& BindNull(int index);

  // Advances: true with a row to read, false when done; an Error on failure.
  core::Result<bool> Step();
  // Runs the statement to completion and resets it for reuse.
  core::Status Run();
  // Ends a run and unbinds every parameter (each is NULL until bound).
  void Reset();

  bool IsNull(int column) const;
  int64_t Int(int column) const;
  double Double(int column) const;
  std::optional<double> OptionalDouble(int column) const;
  std::string Text(int column) const;
  int ColumnType(int column) const;

 private:
  sqlite3_stmt* stmt_;
  Database* owner_;
  sqlite3* db_;
  int now_index_ = 0;  // of $now, 0 if none
};

}  // namespace tuner::storage

#endif  // TUNER_STORAGE_SQLITE_H_
