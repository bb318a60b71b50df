#include "storage/sqlite.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <mutex>
#include <thread>
#include <utility>

#include "core/param_value.h"

namespace tuner::storage {

namespace {

// Whether this process may write `file` (as its effective user; an
// immutable file is not writable even to root). A missing one will be
// created by SQLite, and so is.
bool MayWrite(const std::string& file) {
  return faccessat(AT_FDCWD, file.c_str(), W_OK, AT_EACCESS) == 0 ||
         errno == ENOENT;
}

// SQLite's process-wide settings, before its first connection: no memory
// statistics (this process never reads them; keeping them takes a global
// mutex on every allocation).
void ConfigureSqliteOnce() {
  static std::once_flag once;
  std::call_once(once, [] { sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); });
}

}  // namespace

Database::Database(sqlite3* db, std::string path)
    : db_(db), path_(std::move(path)) {
  if (path_.empty()) return;
  for (const auto& file : {path_, path_ + "-wal", path_ + "-shm"}) {
    if (MayWrite(file)) writable_.push_back(file);
  }
  if (!writable_.empty() && writable_.back() == path_ + "-shm") {
    shm_ = writable_.back();
  }
}

core::Status Database::CheckFile(const std::string& file) {
  if (lost_) return *lost_;
  if (MayWrite(file)) return core::Status::Ok();
  lost_ = core::IoError("database " + path_ + ": " + file +
                        " is no longer writable (" + std::strerror(errno) +
                        "; read-only or immutable?)");
  // Closing would checkpoint, writing the files it may not.
  sqlite3_db_config(db_, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
  return *lost_;
}

core::Status Database::CheckFiles() {
  if (lost_) return *lost_;
  return shm_ ? CheckFile(*shm_) : core::Status::Ok();
}

core::Status Database::CheckAllFiles() {
  for (const auto& file : writable_) TUNER_RETURN_IF_ERROR(CheckFile(file));
  return lost_ ? core::Status(*lost_) : core::Status::Ok();
}

namespace {

// `error`, a failed statement's, unless a file of `db` is no longer
// writable: then that.
core::Error FileErrorOr(Database& db, core::Error error) {
  core::Status files = db.CheckAllFiles();
  return files.ok() ? error : files.error();
}

}  // namespace

core::Error Database::WriteError() {
  return FileErrorOr(*this, core::IoError(sqlite3_errmsg(db_)));
}

core::Result<std::unique_ptr<Database>> Database::Open(const std::string& path,
                                                       bool read_only) {
  ConfigureSqliteOnce();
  sqlite3* db = nullptr;
  int flags = read_only ? SQLITE_OPEN_READONLY
                        : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  int rc =
      sqlite3_open_v2(path.c_str(), &db, flags | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close(db);
    return core::IoError("cannot open database " + path + ": " + message);
  }
  sqlite3_extended_result_codes(db, 1);
  bool in_memory = path.empty() || path == ":memory:";
  std::unique_ptr<Database> database(new Database(db, in_memory ? "" : path));
  database->set_busy_policy(BusyPolicy{});
  if (!read_only && !in_memory) {
    sqlite3_wal_hook(db, &Database::AfterWalCommit, database.get());
  }
  if (!read_only && database->writable_.size() < 3 && !in_memory) {
    for (const auto& file : {path, path + "-wal", path + "-shm"}) {
      if (!MayWrite(file)) {
        return core::IoError("cannot open database " + path + ": " + file +
                             " is not writable (" + std::strerror(errno) + ")");
      }
    }
  }
  return database;
}

int Database::AfterWalCommit(void* database, sqlite3* db, const char* schema,
                             int frames) {
  if (frames < kCheckpointFrames) return SQLITE_OK;
  int rc = sqlite3_wal_checkpoint_v2(db, schema, SQLITE_CHECKPOINT_PASSIVE,
                                     nullptr, nullptr);
  // Busy: a reader holds what it would copy; the next commit tries again.
  if (rc != SQLITE_OK && (rc & 0xff) != SQLITE_BUSY) {
    (void)static_cast<Database*>(database)->CheckAllFiles();
  }
  return SQLITE_OK;  // the commit is done whatever the checkpoint did
}

void Database::set_busy_policy(const BusyPolicy& policy) {
  busy_ = policy;
  sqlite3_busy_timeout(db_, static_cast<int>(policy.statement_wait.count()));
}

bool Database::InTransaction() const { return !sqlite3_get_autocommit(db_); }

uint32_t Database::DataVersion() {
  unsigned int version = 0;
  sqlite3_file_control(db_, "main", SQLITE_FCNTL_DATA_VERSION, &version);
  return version;
}

core::Status Database::ExecuteRetrying(std::string_view sql) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + busy_.total;
  auto pause = std::chrono::milliseconds(2);
  for (;;) {
    int code = SQLITE_OK;
    core::Status status = ExecuteSaved(sql, &code);
    code &= 0xff;
    if (status.ok() || (code != SQLITE_BUSY && code != SQLITE_LOCKED)) {
      return status;
    }
    if (Clock::now() >= deadline) {
      return core::IoError(
          status.message() + " (another connection held the lock for " +
          core::FormatDouble(busy_.total.count() / 1000.0) + " s)");
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(100));
  }
}

Database::~Database() {
  (void)CheckAllFiles();
  for (auto& [sql, stmt] : saved_) sqlite3_finalize(stmt);
  sqlite3_close_v2(db_);
}

core::Status Database::ExecuteSaved(std::string_view sql, int* code) {
  TUNER_RETURN_IF_ERROR(CheckFiles());
  auto found = saved_.find(std::string(sql));
  if (found == saved_.end()) {
    sqlite3_stmt* stmt = nullptr;
    int rc = sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()),
                                SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
    if (rc != SQLITE_OK) {
      *code = sqlite3_extended_errcode(db_);
      return LastError("prepare");
    }
    found = saved_.emplace(std::string(sql), stmt).first;
  }
  int rc;
  while ((rc = sqlite3_step(found->second)) == SQLITE_ROW) {
  }
  *code = sqlite3_extended_errcode(db_);
  core::Status status =
      rc == SQLITE_DONE ? core::Status::Ok() : core::Status(WriteError());
  sqlite3_reset(found->second);
  return status;
}

core::Status Database::Execute(std::string_view sql) {
  TUNER_RETURN_IF_ERROR(CheckFiles());
  std::string text(sql);
  char* message = nullptr;
  if (sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &message) !=
      SQLITE_OK) {
    core::Error error =
        core::IoError(std::string(message ? message : "sqlite error"));
    sqlite3_free(message);
    return FileErrorOr(*this, error);
  }
  return core::Status::Ok();
}

namespace {

// The number $now takes in `sql`: one past every parameter the text
// numbers (?N) or leaves to SQLite (a bare ?). A named parameter would take
// the next free number where it first appears, which could collide with a
// later ?1; and a number past the text's own keeps the statement's
// parameters few (Reset() clears each one).
int NowParameter(std::string_view sql) {
  int highest = 0;
  int bare = 0;
  for (size_t at = sql.find('?'); at != std::string_view::npos;
       at = sql.find('?', at + 1)) {
    int number = 0;
    size_t digit = at + 1;
    for (; digit < sql.size() &&
           std::isdigit(static_cast<unsigned char>(sql[digit]));
         ++digit) {
      number = std::min(number * 10 + (sql[digit] - '0'), 1 << 20);
    }
    if (digit == at + 1) ++bare;
    highest = std::max(highest, number);
  }
  return highest + bare + 1;
}

}  // namespace

core::Result<Statement> Database::Prepare(std::string_view sql) {
  std::string text(sql);
  int now = 0;
  if (text.find("$now") != std::string::npos) now = NowParameter(text);
  for (size_t at; (at = text.find("$now")) != std::string::npos;)
    text.replace(at, 4, "?" + std::to_string(now));
  if (sqlite3_get_autocommit(db_)) TUNER_RETURN_IF_ERROR(CheckFiles());
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v3(db_, text.data(), static_cast<int>(text.size()),
                              SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
  if (rc != SQLITE_OK) return LastError("prepare");
  return Statement(stmt, this, now);
}

int64_t Database::LastInsertRowId() const {
  return sqlite3_last_insert_rowid(db_);
}

int64_t Database::Changes() const { return sqlite3_changes(db_); }

double Database::NowSeconds() const {
  if (now_) return now_();
  auto now = std::chrono::system_clock::now().time_since_epoch();
  return std::chrono::duration<double>(now).count();
}

core::Error Database::LastError(std::string_view what) const {
  return core::IoError(std::string(what) + ": " + sqlite3_errmsg(db_));
}

Statement::Statement(Statement&& other) noexcept
    : stmt_(std::exchange(other.stmt_, nullptr)),
      owner_(other.owner_),
      db_(other.db_),
      now_index_(other.now_index_) {}

Statement& Statement::operator=(Statement&& other) noexcept {
  if (this != &other) {
    sqlite3_finalize(stmt_);
    stmt_ = std::exchange(other.stmt_, nullptr);
    owner_ = other.owner_;
    db_ = other.db_;
    now_index_ = other.now_index_;
  }
  return *this;
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

Statement& Statement::Bind(int index, int64_t value) {
  sqlite3_bind_int64(stmt_, index, value);
  return *this;
}

Statement& Statement::Bind(int index, double value) {
  if (std::isnan(value)) return BindNull(index);
  sqlite3_bind_double(stmt_, index, value);
  return *this;
}

Statement& Statement::Bind(int index, std::string_view value) {
  sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()),
                    SQLITE_TRANSIENT);
  return *this;
}

Statement& Statement::BindBytes(int index, std::string_view value) {
  sqlite3_bind_blob(stmt_, index, value.data(), static_cast<int>(value.size()),
                    SQLITE_TRANSIENT);
  return *this;
}

Statement& Statement::BindUntilReset(int index, std::string_view value) {
  sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()),
                    SQLITE_STATIC);
  return *this;
}

Statement& Statement::BindBytesUntilReset(int index, std::string_view value) {
  sqlite3_bind_blob(stmt_, index, value.data(), static_cast<int>(value.size()),
                    SQLITE_STATIC);
  return *this;
}

Statement& Statement::Bind(int index, std::optional<double> value) {
  return value ? Bind(index, *value) : BindNull(index);
}

Statement& Statement::BindNull(int index) {
  sqlite3_bind_null(stmt_, index);
  return *this;
}

Statement::Statement(sqlite3_stmt* stmt, Database* db, int now_index)
    : stmt_(stmt), owner_(db), db_(db->handle()), now_index_(now_index) {}

core::Result<bool> Statement::Step() {
  // Inside an explicit transaction, BEGIN checked and COMMIT will: SQLite
  // writes the -shm mapping when a transaction starts and ends (and when a
  // large one spills pages to the WAL: files turning read-only in the
  // middle of such a transaction remain a SIGBUS). Checking before every
  // statement cost 3 syscalls each: 3.5x fewer reports per second.
  if (!sqlite3_stmt_busy(stmt_) && sqlite3_get_autocommit(db_))
    TUNER_RETURN_IF_ERROR(owner_->CheckFiles());
  if (now_index_ > 0 && !sqlite3_stmt_busy(stmt_)) {
    sqlite3_bind_double(stmt_, now_index_, owner_->NowSeconds());
  }
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  core::Error error = owner_->WriteError();
  sqlite3_reset(stmt_);
  return error;
}

core::Status Statement::Run() {
  auto stepped = Step();
  Reset();
  return stepped.status();
}

void Statement::Reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

bool Statement::IsNull(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

int64_t Statement::Int(int column) const {
  return sqlite3_column_int64(stmt_, column);
}

double Statement::Double(int column) const {
  return IsNull(column) ? std::nan("") : sqlite3_column_double(stmt_, column);
}

std::optional<double> Statement::OptionalDouble(int column) const {
  if (IsNull(column)) return std::nullopt;
  return sqlite3_column_double(stmt_, column);
}

std::string Statement::Text(int column) const {
  const auto* text = sqlite3_column_text(stmt_, column);
  if (text == nullptr) return {};
  return std::string(reinterpret_cast<const char*>(text),
                     sqlite3_column_bytes(stmt_, column));
}

int Statement::ColumnType(int column) const {
  return sqlite3_column_type(stmt_, column);
}

}  // namespace tuner::storage
