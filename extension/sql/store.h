// store.h — the extension's tables: migrations, the terminology mirror, the corpus, and the
// per-connection cache of prepared trials.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "drug_cache.h"
#include "grade.h"
#include "validator.h"

struct sqlite3;
struct sqlite3_stmt;

namespace scribe::sql {

// Applies pending migrations from sql/schema.sql, turns on foreign keys (and WAL for file
// databases), and refreshes the terminology mirror when its version changed. Read-only
// databases are left as they are. Throws SqlError.
void Migrate(sqlite3* db);

// Validates every trial in `dir`, then replaces `trials` in one savepoint and records the
// corpus version. Returns the number of trials. Throws TrialError or SqlError; on any error the
// previous corpus is untouched.
// Loads the public corpus in `dir` and, when `sealed_dir` is not empty, the sealed trials kept
// outside the repository (every trial there is sealed). The corpus hash covers both; each sealed
// file's SHA-256 is committed in sealed_commitments the first time it is loaded (locked_at).
int LoadCorpusIntoDb(sqlite3* db, const std::string& dir, const std::string& sealed_dir = "");

// State attached to one connection.
struct Connection {
  std::unique_ptr<DrugValidator> validator;
  // Statements prepared once for this connection, by SQL text (scribe_refresh_standings():
  // compiling the standings views costs more than running them for one vendor; the drug_cache
  // lookups and writes of the live validator, drug_cache.h). Finalized when
  // the connection closes: the extension's SQLITE_TRACE_CLOSE callback clears them before SQLite
  // checks for open statements (scribe_ext.cpp).
  KeptStatements statements;

  // The prepared trial for an id, from the process's cache or the trials table; sets
  // corpus_hash. Throws SqlError("unknown trial ...") when there is no such trial.
  std::shared_ptr<const PreparedTrial> Trial(sqlite3* db, const std::string& id, std::string& corpus_hash);
};

// Prepared trials are shared by every connection of the process (a PreparedTrial is immutable
// and safe to grade with from any thread): id -> the one prepared from the stored definition,
// valid while the row's version_hash and corpus_hash are those it was prepared under. A worker
// with many request threads prepares each trial once, not once per connection. This drops them
// all (after a corpus load, to give the memory back).
void ForgetPreparedTrials();

}  // namespace scribe::sql
