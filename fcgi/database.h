// database.h — one worker's view of the database: its connections and the endpoint statements.
//
// Every endpoint is a named SQL file, sql/endpoints/<name>.sql, compiled into the binary. A
// worker prepares each once and reuses it for every request (reset and unbound after use).
// Statements run on a read-only connection unless their file says "-- connection: write";
// the write connection serves grading and the INSERT. Both connections have the scribe
// functions registered, WAL journaling (set by the extension's migration) and a busy timeout,
// so concurrent writers in other workers wait instead of failing.
//
//   Database db("data.db");
//   Query q = db.Run("script");
//   q.Bind(":script_id", "03-depression-suicidal-ideation");
//   if (q.Step()) body = q.Text(0);
#pragma once

#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "result_columns.h"
#include "store_client.h"

struct sqlite3;
struct sqlite3_stmt;

namespace scribe::http {

// The busy timeout of every connection: how long a statement waits for another worker's lock.
constexpr int kBusyTimeoutMs = 10000;

// The endpoint statements the program uses, by file name under sql/endpoints/.
inline constexpr const char* kEndpointNames[] = {"health",      "scripts", "script",     "grade",
                                                 "submit",      "dry_run", "submission", "leaderboard",
                                                 "badge",       "methodology", "claim",   "vendor_key",
                                                 "vendor",      "vendor_trials", "sealed_attempts",
                                                 "sealed_attempt_add", "refresh_standings",
                                                 "sealed_attempt_take"};

// Opens `path` read-write, registers the scribe functions (migrating the schema) and, when
// `corpus_dir` is not empty, loads that corpus. Used once by the supervisor before it forks.
// Returns the number of trials in the database afterwards. Throws std::runtime_error.
int PrepareDatabase(const std::string& path, const std::string& corpus_dir, const std::string& sealed_dir = "");

// Cluster mode, at start (main.cpp): each sealed commitment in the grader's file at `path` takes
// the lock time the store has for it. The store keeps the commitment (cluster/publish adds it
// once, at the first publication); the grader's own corpus load stamped its copy with the
// grader's start, so without this every grader's trial cards (`locked_at`) would show another
// time, and a new one after each start with a fresh --db. Returns how many rows changed;
// commitments the store does not have keep the grader's time. Throws std::runtime_error when the
// store does not answer within `deadline_ms` or the file cannot be written.
int AdoptStoreCommitments(const std::string& path, StoreClient& store, std::int64_t deadline_ms);

// True for SQLite result codes that mean the database cannot be written (disk full, I/O error,
// read-only, corrupt): the answer to a write that failed so is 507/503, and /health reports it.
bool IsStorageError(int code);

// One statement in use: bound by parameter name, stepped, then reset and unbound when the Query
// goes out of scope, so the statement is ready for the next request.
//
// In cluster mode a read of the record (Database::RunsOnStore) is a Query on the store: the
// statement's text and its parameter names (from the local copy, prepared and checked as every
// endpoint is) go to POST /v1/query when Step() is first called; an unbound parameter is NULL,
// as it is locally. Step() throws StoreUnavailable when no store node answers.
class Query {
 public:
  Query(sqlite3* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  Query(StoreClient& store, sqlite3_stmt* local);  // a read on the store; `local` names the parameters
  Query(const Query&) = delete;
  Query& operator=(const Query&) = delete;
  ~Query();

  // Binds text to a named parameter (":id"); throws when the statement has no such parameter.
  Query& Bind(const char* name, std::string_view value);
  // Binds a value read from a result (result_columns.h): text, an integer or NULL.
  Query& Bind(const char* name, const sql::SqlValue& value);
  // True when a row is available; false when done. Throws scribe::sql::SqlError.
  bool Step();
  // Ends the statement now (sqlite3_reset) and checks the result: a write statement's changes
  // are complete only when this returns. Throws scribe::sql::SqlError.
  void Finish();
  std::string Text(int column) const;
  std::int64_t Int(int column) const;
  bool IsNull(int column) const;

 private:
  int Index(const char* name) const;  // the parameter's index; throws when there is none
  struct Remote {
    StoreClient* store;
    StoreStatement statement;
    nlohmann::json rows;  // the answer's rows, once run
    std::size_t next = 0;
    bool ran = false;
  };
  const nlohmann::json& Cell(int column) const;  // the current remote row's value
  sqlite3* db_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
  std::unique_ptr<Remote> remote_;
};

class Database {
 public:
  // Opens both connections and prepares every endpoint; throws std::runtime_error naming the
  // file and SQLite's message when something is missing or does not compile. `synchronous` is
  // the write connection's PRAGMA synchronous: "full" (every acknowledged submission is on disk
  // before the answer) or "normal" (WAL's lighter mode: survives a crashed process, may lose
  // the last commits on power loss; several times the submit throughput).
  // With `prepare_all` false, each endpoint is prepared on its first Run() instead (the
  // request threads of a worker: the first thread's Database has checked every file already,
  // and a thread then compiles only the statements its requests use).
  //
  // With `store_urls` (cluster mode, store_client.h) the reads of the record run on the store;
  // the local file holds the corpus the grader grades against and its drug_cache.
  explicit Database(const std::string& path, const std::string& synchronous = "full", bool prepare_all = true,
                    const std::vector<std::string>& store_urls = {});
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;
  ~Database();

  // The named endpoint statement, ready to bind. Throws std::logic_error for an unknown name.
  Query Run(std::string_view endpoint);

  // Cluster mode: the store client of this connection set, else nullptr.
  StoreClient* store() { return store_.get(); }
  // True for an endpoint that reads the record and so runs on the store in cluster mode.
  static bool RunsOnStore(std::string_view endpoint);
  // Cluster mode: the endpoint's statement for the store, every parameter NULL until set, and
  // without its closing RETURNING clause (dqlite's exec answers no rows; callers read back what
  // they need). Throws std::logic_error for an unknown name.
  StoreStatement StoreWrite(std::string_view endpoint);

  // Runs one statement without results on the write connection (BEGIN, SAVEPOINT, RELEASE,
  // COMMIT), prepared on first use and kept; throws SqlError with the extended result code.
  void ExecWrite(const std::string& sql);
  // True while the write connection is inside a transaction.
  bool InTransaction() const;

  // Checkpoints left to the caller (the committer, with a Checkpointer beside it): the write
  // connection stops checkpointing inside COMMIT, WalFrames() is the WAL's size in frames after
  // the last commit, and CheckpointIfDue() runs a PASSIVE checkpoint on this connection once a
  // commit has left kCheckpointPages or more in the WAL. Returns whether it ran one; a checkpoint
  // that fails is logged and tried again after the next commit. Call all three on the thread
  // that commits.
  static constexpr int kCheckpointPages = 3500;
  // SQLite's own mark (wal_autocheckpoint's default): from here a Checkpointer is worth poking.
  static constexpr int kCheckpointerPages = 1000;
  void DeferCheckpoints();
  int WalFrames() const { return wal_frames_; }
  bool CheckpointIfDue();

  // The write connection's WAL file when the database is in WAL mode, else "": the file whose
  // fsync makes a commit durable (the committer syncs it on a thread of its own, committer.h).
  std::string WalPath();

  // PRAGMA data_version of the read connection: it changes whenever any other connection (this
  // worker's write connection, another worker, an analyst's sqlite3) commits. Throws SqlError.
  std::int64_t DataVersion();

 private:
  friend class WriteTransaction;
  struct Closer {
    void operator()(sqlite3* db) const;
  };
  struct Finalizer {
    void operator()(sqlite3_stmt* s) const;
  };
  struct Endpoint {
    std::unique_ptr<sqlite3_stmt, Finalizer> stmt;
    sqlite3* db;
  };
  std::unique_ptr<StoreClient> store_;
  std::unique_ptr<sqlite3, Closer> read_;
  std::unique_ptr<sqlite3, Closer> write_;
  Endpoint& Prepared(std::string_view name);  // prepares the endpoint on first use; throws
  std::map<std::string, Endpoint, std::less<>> endpoints_;
  std::unique_ptr<sqlite3_stmt, Finalizer> data_version_;
  std::map<std::string, std::unique_ptr<sqlite3_stmt, Finalizer>, std::less<>> control_;  // ExecWrite's
  int wal_frames_ = 0;  // DeferCheckpoints: the WAL's frames after the last commit
};

// A thread with a connection of its own that checkpoints the WAL when poked: PASSIVE, so it
// copies only what no reader still needs and never waits for a lock. The committer pokes it
// after a commit that leaves SQLite's usual 1,000 pages in the WAL, and goes on writing while
// it copies; the WAL starts over only once every frame is in the database when a transaction
// begins, so at Database::kCheckpointPages the writer tops the checkpoint up itself (a few
// hundred pages) and the WAL stays under journal_size_limit.
class Checkpointer {
 public:
  // Opens the connection (throws std::runtime_error like Database) and starts the thread.
  Checkpointer(const std::string& path, const std::string& synchronous);
  Checkpointer(const Checkpointer&) = delete;
  Checkpointer& operator=(const Checkpointer&) = delete;
  // Lets a checkpoint in progress finish, then stops the thread.
  ~Checkpointer();
  // Asks for a checkpoint and returns at once (a request while one runs starts one more after it).
  void Poke();
  // Checkpoints run so far (for tests).
  std::uint64_t Runs() const;

 private:
  void Run();
  struct Closer {
    void operator()(sqlite3* db) const;
  };
  std::unique_ptr<sqlite3, Closer> db_;
  mutable std::mutex mu_;
  std::condition_variable wake_;
  bool wanted_ = false, stop_ = false;
  std::uint64_t runs_ = 0;
  std::thread thread_;
};

// An explicit transaction on the write connection, so that a commit's result is seen: the
// statements run inside it, Commit() runs COMMIT and throws its error (SQLITE_FULL on a full
// disk, SQLITE_IOERR_* when the journal cannot be written), and the destructor rolls back
// whatever was not committed. Nothing is acknowledged before Commit() has returned.
//
//   WriteTransaction tx(db);        // BEGIN IMMEDIATE (waits for the lock up to the busy timeout)
//   Query q = db.Run("submit"); …; q.Finish();
//   tx.Commit();                    // on disk (synchronous = FULL) once this returns
class WriteTransaction {
 public:
  explicit WriteTransaction(Database& db);  // throws scribe::sql::SqlError
  WriteTransaction(const WriteTransaction&) = delete;
  WriteTransaction& operator=(const WriteTransaction&) = delete;
  ~WriteTransaction();                      // ROLLBACK unless committed; never throws
  void Commit();                            // throws scribe::sql::SqlError

 private:
  Database& db_;
  bool open_ = true;
};

}  // namespace scribe::http
