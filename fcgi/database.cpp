// database.cpp — connections, endpoint statements and the Query wrapper of database.h.
#include "database.h"

#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "embedded.h"
#include "terminology.h"
#include "sqlite_util.h"

extern "C" int sqlite3_scribe_init(sqlite3* db, char** pzErrMsg, const struct sqlite3_api_routines* pApi);

namespace scribe::http {

using scribe::sql::SqlError;

namespace {

// While another connection holds the lock: wait in steps of 0.25 ms up to kBusyTimeoutMs.
// SQLite's own busy timeout sleeps 1, 2, 5 … up to 100 ms at a time, which leaves a group-commit
// writer asleep long after the lock it waits for is free.
int WaitForLock(void*, int attempts) {
  constexpr int kStepUs = 250;
  if (static_cast<long long>(attempts) * kStepUs >= kBusyTimeoutMs * 1000LL) return 0;  // give up: SQLITE_BUSY
  usleep(kStepUs);
  return 1;
}

// Opens a connection with the scribe functions registered and a busy timeout; throws.
sqlite3* Open(const std::string& path, bool writable) {
  sqlite3* db = nullptr;
  int flags = (writable ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY) | SQLITE_OPEN_NOMUTEX;
  int rc = sqlite3_open_v2(path.c_str(), &db, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close(db);
    throw std::runtime_error("cannot open " + path + ": " + msg);
  }
  sqlite3_busy_handler(db, WaitForLock, nullptr);
  char* err = nullptr;
  rc = sqlite3_scribe_init(db, &err, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = err ? err : sqlite3_errstr(rc);
    sqlite3_free(err);
    sqlite3_close(db);
    throw std::runtime_error(msg);
  }
  return db;
}

// After a checkpoint the WAL is truncated back to at most this, so a burst of submissions does
// not keep its disk space for good (SQLite's default keeps the largest WAL ever written).
constexpr const char* kJournalSizeLimit = "PRAGMA journal_size_limit = 16777216";

// A write connection checkpoints after a commit that leaves 3,500 pages or more in the WAL
// (SQLite's default: 1,000). A checkpoint copies each page into the database once, however many
// frames of it the WAL holds, and every batch of submissions rewrites the same pages (the indexes'
// right edges, vendors, standings): at 1,000 they were copied every few transactions.
// 3,500 frames and one more batch's stay under kJournalSizeLimit (4,120 bytes a frame).
// tests/bench/committer_bench, synchronous=full, three alternating runs on a 2-core AMD EPYC:
// 2.25-2.31k stored submissions/s at 1,000, 2.59-2.89k at 3,500. (The committer's writer does
// not checkpoint in COMMIT: a Checkpointer copies beside it, and it tops up at the same mark.)
const std::string kWalAutocheckpoint = "PRAGMA wal_autocheckpoint = " + std::to_string(Database::kCheckpointPages);

// A PASSIVE checkpoint on `db`; false when it did not run (busy: another connection is
// checkpointing) or failed (logged: the next commit tries again).
bool Checkpoint(sqlite3* db) {
  int rc = sqlite3_wal_checkpoint_v2(db, nullptr, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
  if (rc != SQLITE_OK && rc != SQLITE_BUSY)
    std::fprintf(stderr, "scribe-fcgi[%d]: checkpoint failed: %s (SQLite %d)\n", static_cast<int>(getpid()),
                 sqlite3_errmsg(db), rc);
  return rc == SQLITE_OK;
}

void ExecOrThrow(sqlite3* db, const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : sqlite3_errmsg(db);
    sqlite3_free(err);
    throw std::runtime_error(std::string(sql) + ": " + msg);
  }
}

}  // namespace

int PrepareDatabase(const std::string& path, const std::string& corpus_dir, const std::string& sealed_dir) {
  sqlite3* raw = Open(path, /*writable=*/true);
  std::unique_ptr<sqlite3, decltype(&sqlite3_close)> db(raw, &sqlite3_close);
  ExecOrThrow(db.get(), "PRAGMA journal_mode = WAL");
  ExecOrThrow(db.get(), kJournalSizeLimit);
  if (!corpus_dir.empty()) {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db.get(), "SELECT scribe_load_corpus(?1, ?2)", -1, &s, nullptr) != SQLITE_OK)
      throw std::runtime_error(sqlite3_errmsg(db.get()));
    scribe::sql::Stmt load(s);
    sqlite3_bind_text(s, 1, corpus_dir.c_str(), -1, SQLITE_TRANSIENT);
    if (!sealed_dir.empty()) sqlite3_bind_text(s, 2, sealed_dir.c_str(), -1, SQLITE_TRANSIENT);
    if (sqlite3_step(s) != SQLITE_ROW) throw std::runtime_error("loading " + corpus_dir + ": " + sqlite3_errmsg(db.get()));
  }
  int trials = 0;
  {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db.get(), "SELECT count(*) FROM trials", -1, &s, nullptr) != SQLITE_OK)
      throw std::runtime_error(sqlite3_errmsg(db.get()));
    scribe::sql::Stmt count(s);
    if (sqlite3_step(s) != SQLITE_ROW) throw std::runtime_error(sqlite3_errmsg(db.get()));
    trials = sqlite3_column_int(s, 0);
  }
  // Every stored note is graded under the grader and corpus now loaded before anyone reads the
  // leaderboard: a rule or corpus change re-grades (idempotent: current grades are skipped).
  if (trials > 0) {  // without a corpus there is nothing to grade against (/health says so)
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db.get(), "SELECT scribe_regrade()", -1, &s, nullptr) != SQLITE_OK)
      throw std::runtime_error(sqlite3_errmsg(db.get()));
    scribe::sql::Stmt regrade(s);
    if (sqlite3_step(s) != SQLITE_ROW) throw std::runtime_error(std::string("regrading: ") + sqlite3_errmsg(db.get()));
    const unsigned char* report = sqlite3_column_text(s, 0);
    std::fprintf(stderr, "scribe-fcgi: regrade %s\n", report ? reinterpret_cast<const char*>(report) : "null");
  }
  // Before the workers fork: every trial prepared (grading an empty note prepares it into the
  // process-wide cache) and the approximate-match index built, so the workers inherit both and
  // no vendor's first submission to a trial waits for its preparation.
  if (trials > 0) ExecOrThrow(db.get(), "SELECT count(grade_submission(id, '')) FROM trials");
  scribe::DefaultTerminology().PrepareApproximateIndex();
  // Start with an empty WAL (a corpus load can leave megabytes in it): the file's space is
  // given back before the workers start appending submissions.
  ExecOrThrow(db.get(), "PRAGMA wal_checkpoint(TRUNCATE)");
  return trials;
}

int AdoptStoreCommitments(const std::string& path, StoreClient& store, std::int64_t deadline_ms) {
  StoreAnswer a = store.Query({"SELECT trial_id, version_hash, locked_at FROM sealed_commitments"}, deadline_ms);
  if (a.kind != StoreAnswer::kOk || !a.body["rows"].is_array())
    throw std::runtime_error("reading the sealed commitments from the store: " +
                             (a.message.empty() ? std::string("no rows") : a.message));
  std::unique_ptr<sqlite3, decltype(&sqlite3_close)> db(Open(path, /*writable=*/true), &sqlite3_close);
  auto fail = [&db](const std::string& what) {
    return std::runtime_error("writing the store's commitments into " + std::string(sqlite3_db_filename(db.get(), "main")) +
                              ": " + what + ": " + sqlite3_errmsg(db.get()));
  };
  if (sqlite3_exec(db.get(), "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) != SQLITE_OK) throw fail("BEGIN");
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v2(db.get(),
                         "UPDATE sealed_commitments SET locked_at = ?3 "
                         "WHERE trial_id = ?1 AND version_hash = ?2 AND locked_at IS NOT ?3",
                         -1, &s, nullptr) != SQLITE_OK) {
    sqlite3_exec(db.get(), "ROLLBACK", nullptr, nullptr, nullptr);
    throw fail("prepare");
  }
  std::unique_ptr<sqlite3_stmt, decltype(&sqlite3_finalize)> update(s, &sqlite3_finalize);
  int changed = 0;
  for (const nlohmann::json& r : a.body["rows"]) {
    if (!r.is_array() || r.size() != 3 || !r[0].is_string() || !r[1].is_string() || !r[2].is_string()) {
      sqlite3_exec(db.get(), "ROLLBACK", nullptr, nullptr, nullptr);
      throw std::runtime_error("the store answered a commitment that is not (trial_id, version_hash, locked_at)");
    }
    for (int i = 0; i < 3; ++i) {
      const std::string& v = r[i].get_ref<const std::string&>();
      sqlite3_bind_text(s, i + 1, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    }
    if (sqlite3_step(s) != SQLITE_DONE) {
      sqlite3_exec(db.get(), "ROLLBACK", nullptr, nullptr, nullptr);
      throw fail("update");
    }
    changed += sqlite3_changes(db.get());
    sqlite3_reset(s);
  }
  if (sqlite3_exec(db.get(), "COMMIT", nullptr, nullptr, nullptr) != SQLITE_OK) {
    sqlite3_exec(db.get(), "ROLLBACK", nullptr, nullptr, nullptr);
    throw fail("COMMIT");
  }
  return changed;
}

void Database::Closer::operator()(sqlite3* db) const { sqlite3_close_v2(db); }
void Database::Finalizer::operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }

Database::Database(const std::string& path, const std::string& synchronous, bool prepare_all,
                   const std::vector<std::string>& store_urls) {
  if (!store_urls.empty()) store_ = std::make_unique<StoreClient>(store_urls);
  write_.reset(Open(path, /*writable=*/true));
  if (synchronous != "full" && synchronous != "normal")
    throw std::runtime_error("synchronous must be full or normal, not '" + synchronous + "'");
  ExecOrThrow(write_.get(), synchronous == "full" ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL");
  ExecOrThrow(write_.get(), kJournalSizeLimit);
  ExecOrThrow(write_.get(), kWalAutocheckpoint.c_str());
  // The committer stores each submission of a batch in its own SAVEPOINT: SQLite journals the old
  // content of every page of the file the INSERT and its triggers change (pages reused from the
  // freelist included), and with the default temp_store a journal over 64 KiB spills to a
  // temporary file in /var/tmp, written a page at a time (2 pwrites each) and unlinked. Under
  // tests/bench/wrk/run's submits that was about half the writer's pwrite calls (strace). In
  // memory it is truncated at each RELEASE: at most one submission's pages.
  ExecOrThrow(write_.get(), "PRAGMA temp_store = MEMORY");
  read_.reset(Open(path, /*writable=*/false));
  if (prepare_all)
    for (const char* name : kEndpointNames) Prepared(name);
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v3(read_.get(), "PRAGMA data_version", -1, SQLITE_PREPARE_PERSISTENT, &stmt, nullptr) != SQLITE_OK)
    throw std::runtime_error(std::string("PRAGMA data_version: ") + sqlite3_errmsg(read_.get()));
  data_version_.reset(stmt);
}

Database::Endpoint& Database::Prepared(std::string_view name) {
  if (auto it = endpoints_.find(name); it != endpoints_.end()) return it->second;
  if (std::find_if(std::begin(kEndpointNames), std::end(kEndpointNames), [&](const char* n) { return name == n; }) ==
      std::end(kEndpointNames))
    throw std::logic_error("no endpoint statement " + std::string(name));
  std::string file = "sql/endpoints/" + std::string(name) + ".sql";
  std::string_view sql = embedded_file(file);
  if (sql.empty()) throw std::runtime_error(file + " is not embedded in this build (re-run cmake)");
  bool writes = sql.find("-- connection: write") != std::string_view::npos;
  sqlite3* db = writes ? write_.get() : read_.get();
  sqlite3_stmt* stmt = nullptr;
  const char* tail = nullptr;
  if (sqlite3_prepare_v3(db, sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT, &stmt, &tail) !=
      SQLITE_OK)
    throw std::runtime_error(file + ": " + sqlite3_errmsg(db));
  std::unique_ptr<sqlite3_stmt, Finalizer> owned(stmt);
  if (!stmt) throw std::runtime_error(file + ": no SQL statement");
  for (const char* p = tail; p && *p; ++p)
    if (*p != ' ' && *p != '\n' && *p != '\t' && *p != '\r')
      throw std::runtime_error(file + ": one statement per endpoint file");
  return endpoints_.emplace(std::string(name), Endpoint{std::move(owned), db}).first->second;
}

void Database::DeferCheckpoints() {
  sqlite3_wal_hook(
      write_.get(),
      [](void* self, sqlite3*, const char*, int frames) {
        static_cast<Database*>(self)->wal_frames_ = frames;
        return SQLITE_OK;
      },
      this);
}

bool Database::CheckpointIfDue() {
  if (wal_frames_ < kCheckpointPages || !Checkpoint(write_.get())) return false;
  wal_frames_ = 0;
  return true;
}

void Checkpointer::Closer::operator()(sqlite3* db) const { sqlite3_close_v2(db); }

Checkpointer::Checkpointer(const std::string& path, const std::string& synchronous)
    : db_(Open(path, /*writable=*/true)) {
  ExecOrThrow(db_.get(), synchronous == "normal" ? "PRAGMA synchronous = NORMAL" : "PRAGMA synchronous = FULL");
  ExecOrThrow(db_.get(), kJournalSizeLimit);
  thread_ = std::thread([this] { Run(); });
}

Checkpointer::~Checkpointer() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

void Checkpointer::Poke() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (wanted_) return;
    wanted_ = true;
  }
  wake_.notify_one();
}

std::uint64_t Checkpointer::Runs() const {
  std::lock_guard<std::mutex> lock(mu_);
  return runs_;
}

void Checkpointer::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    wake_.wait(lock, [&] { return stop_ || wanted_; });
    if (stop_) return;
    wanted_ = false;
    lock.unlock();
    Checkpoint(db_.get());
    lock.lock();
    ++runs_;
  }
}

std::int64_t Database::DataVersion() {
  Query q(read_.get(), data_version_.get());
  if (!q.Step()) throw SqlError(SQLITE_ERROR, "PRAGMA data_version returned no row");
  return q.Int(0);
}

Database::~Database() {
  endpoints_.clear();  // statements before their connections
  data_version_.reset();
  control_.clear();
}

bool Database::RunsOnStore(std::string_view endpoint) {
  // The reads of the record. The corpus (scripts, script, methodology, health) and grading
  // (grade, dry_run) stay on the grader's own file; the record's writes (submit, claim, sealed
  // attempts, standings) go through the Committer and the Api's cluster paths.
  static constexpr std::string_view kOnStore[] = {"submission", "leaderboard", "badge", "vendor",
                                                  "vendor_trials", "vendor_key"};
  for (std::string_view name : kOnStore)
    if (name == endpoint) return true;
  return false;
}

Query Database::Run(std::string_view endpoint) {
  Endpoint& e = Prepared(endpoint);
  if (store_ && RunsOnStore(endpoint)) return Query(*store_, e.stmt.get());
  return Query(e.db, e.stmt.get());
}

namespace {

// A prepared endpoint as the store receives it: its text, and each named parameter NULL until
// bound (as an unbound parameter is locally).
StoreStatement StatementFor(sqlite3_stmt* local) {
  StoreStatement st;
  st.sql = sqlite3_sql(local);
  for (int i = 1, n = sqlite3_bind_parameter_count(local); i <= n; ++i)
    if (const char* name = sqlite3_bind_parameter_name(local, i)) st.params[name + 1] = nullptr;
  return st;
}

}  // namespace

StoreStatement Database::StoreWrite(std::string_view endpoint) {
  StoreStatement st = StatementFor(Prepared(endpoint).stmt.get());
  // the endpoint files end "RETURNING …;" on a line of its own
  if (std::size_t at = st.sql.rfind("\nRETURNING "); at != std::string::npos) st.sql.resize(at + 1);
  return st;
}

Query::Query(StoreClient& store, sqlite3_stmt* local) : remote_(std::make_unique<Remote>()) {
  remote_->store = &store;
  remote_->statement = StatementFor(local);
}

Query::~Query() {
  if (remote_) return;
  sqlite3_reset(stmt_);  // the result was checked by Step or Finish when it mattered
  sqlite3_clear_bindings(stmt_);
}

void Query::Finish() {
  if (remote_) return;
  if (sqlite3_reset(stmt_) != SQLITE_OK) throw SqlError(sqlite3_extended_errcode(db_), sqlite3_errmsg(db_));
}

const nlohmann::json& Query::Cell(int column) const {
  if (!remote_->ran || remote_->next == 0 || remote_->next > remote_->rows.size())
    throw std::logic_error("no current row");
  const nlohmann::json& row = remote_->rows[remote_->next - 1];
  if (column < 0 || static_cast<std::size_t>(column) >= row.size()) throw std::logic_error("no such column");
  return row[static_cast<std::size_t>(column)];
}


void Database::ExecWrite(const std::string& sql) {
  auto it = control_.find(sql);
  if (it == control_.end()) {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v3(write_.get(), sql.c_str(), -1, SQLITE_PREPARE_PERSISTENT, &stmt, nullptr) != SQLITE_OK)
      throw SqlError(sqlite3_extended_errcode(write_.get()), sqlite3_errmsg(write_.get()));
    it = control_.emplace(sql, std::unique_ptr<sqlite3_stmt, Finalizer>(stmt)).first;
  }
  sqlite3_stmt* stmt = it->second.get();
  int rc = sqlite3_step(stmt);
  sqlite3_reset(stmt);
  if (rc != SQLITE_DONE && rc != SQLITE_ROW)
    throw SqlError(sqlite3_extended_errcode(write_.get()), sqlite3_errmsg(write_.get()));
}

std::string Database::WalPath() {
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(write_.get(), "PRAGMA journal_mode", -1, &stmt, nullptr) != SQLITE_OK)
    throw SqlError(sqlite3_extended_errcode(write_.get()), sqlite3_errmsg(write_.get()));
  std::unique_ptr<sqlite3_stmt, Finalizer> owned(stmt);
  if (sqlite3_step(stmt) != SQLITE_ROW) return "";
  const unsigned char* mode = sqlite3_column_text(stmt, 0);
  if (!mode || std::string_view(reinterpret_cast<const char*>(mode)) != "wal") return "";
  sqlite3_filename file = sqlite3_db_filename(write_.get(), "main");
  const char* wal = file && *file ? sqlite3_filename_wal(file) : nullptr;
  return wal ? wal : "";
}

bool Database::InTransaction() const { return !sqlite3_get_autocommit(write_.get()); }

bool IsStorageError(int code) {
  int primary = code & 0xFF;
  return primary == SQLITE_FULL || primary == SQLITE_IOERR || primary == SQLITE_READONLY ||
         primary == SQLITE_CANTOPEN || primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB;
}

WriteTransaction::WriteTransaction(Database& db) : db_(db) { db_.ExecWrite("BEGIN IMMEDIATE"); }

WriteTransaction::~WriteTransaction() {
  // After a failed statement or COMMIT SQLite may already have rolled back (SQLITE_FULL,
  // SQLITE_IOERR): only roll back a transaction that is still open.
  if (open_ && db_.InTransaction()) sqlite3_exec(db_.write_.get(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void WriteTransaction::Commit() {
  db_.ExecWrite("COMMIT");
  open_ = false;
}

int Query::Index(const char* name) const {
  if (remote_) {
    if (name[0] != ':' || !remote_->statement.params.contains(name + 1))
      throw std::logic_error(std::string("statement has no parameter ") + name);
    return 1;
  }
  int index = sqlite3_bind_parameter_index(stmt_, name);
  if (index == 0) throw std::logic_error(std::string("statement has no parameter ") + name);
  return index;
}

Query& Query::Bind(const char* name, std::string_view value) {
  if (remote_) {
    Index(name);
    remote_->statement.params[name + 1] = std::string(value);
    return *this;
  }
  int rc = sqlite3_bind_text(stmt_, Index(name), value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT);
  if (rc != SQLITE_OK) throw SqlError(rc, sqlite3_errmsg(db_));
  return *this;
}

Query& Query::Bind(const char* name, const sql::SqlValue& value) {
  if (remote_) {
    Index(name);
    nlohmann::json& p = remote_->statement.params[name + 1];
    if (value.type == sql::SqlValue::kText) p = std::string(value.text);
    else if (value.type == sql::SqlValue::kInteger) p = value.integer;
    else p = nullptr;
    return *this;
  }
  int rc = sql::BindValue(stmt_, Index(name), value);
  if (rc != SQLITE_OK) throw SqlError(rc, sqlite3_errmsg(db_));
  return *this;
}

bool Query::Step() {
  if (remote_) {
    if (!remote_->ran) {
      StoreAnswer a = remote_->store->Query(remote_->statement);
      if (a.kind == StoreAnswer::kUnavailable || a.kind == StoreAnswer::kBusy) throw StoreUnavailable(a.message);
      if (a.kind != StoreAnswer::kOk) throw std::runtime_error("the store refused a read: " + a.message);
      remote_->rows = std::move(a.body["rows"]);
      if (!remote_->rows.is_array()) throw std::runtime_error("the store's answer has no rows");
      remote_->ran = true;
    }
    return ++remote_->next <= remote_->rows.size();
  }
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  // sqlite3_errmsg describes the failed step; keep the extended code for the caller.
  throw SqlError(sqlite3_extended_errcode(db_), sqlite3_errmsg(db_));
}

std::string Query::Text(int column) const {
  if (remote_) {
    const nlohmann::json& v = Cell(column);
    return v.is_string() ? v.get<std::string>() : v.is_null() ? std::string() : v.dump();
  }
  const unsigned char* t = sqlite3_column_text(stmt_, column);
  return t ? std::string(reinterpret_cast<const char*>(t), static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column)))
           : std::string();
}

std::int64_t Query::Int(int column) const {
  if (remote_) {
    const nlohmann::json& v = Cell(column);
    if (v.is_number_integer()) return v.get<std::int64_t>();
    if (v.is_number()) return static_cast<std::int64_t>(v.get<double>());
    return v.is_string() ? std::strtoll(v.get<std::string>().c_str(), nullptr, 10) : 0;  // SQLite's conversion
  }
  return sqlite3_column_int64(stmt_, column);
}

bool Query::IsNull(int column) const {
  if (remote_) return Cell(column).is_null();
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

}  // namespace scribe::http
