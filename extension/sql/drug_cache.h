// drug_cache.h — the drug_cache table as the live validator's cache, and the per-connection
// validator chosen from the environment (see docs/live-validation.md).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "drug_cache_store.h"
#include "terminology.h"
#include "validator.h"

struct sqlite3;
struct sqlite3_stmt;

namespace scribe::sql {

// Statements prepared once for one connection, by SQL text (Connection::statements, store.h),
// finalized when the connection closes.
using KeptStatements = std::map<std::string, std::shared_ptr<sqlite3_stmt>>;

// DrugCacheStore over drug_cache on one connection. Reads and writes are best effort: a
// missing table, a read-only database or a busy lock read as "not cached" / "not stored",
// never as an error of the grade. With `kept` (the connection's Connection::statements) its two
// statements are prepared once and kept there, reset after each use: a warm grade looks up about
// a dozen keys, and preparing each lookup cost 6 % of a warm grade (rxnav_bench warm_cache under
// callgrind, 6.30 -> 5.91 M instructions per grade; offline 5.31 M). Without, each call
// prepares its own (no statement outlives the call). A statement that does not prepare (no
// table yet) is not kept, so a later call tries again.
class SqliteDrugCache : public DrugCacheStore {
 public:
  explicit SqliteDrugCache(sqlite3* db, KeptStatements* kept = nullptr) : db_(db), kept_(kept) {}
  std::optional<CacheRow> Get(const std::string& key) override;
  bool Put(const CacheRow& row) override;

 private:
  sqlite3* db_;
  KeptStatements* kept_;
};

// The validator a connection uses: OfflineValidator when SCRIBE_OFFLINE=1, else a
// LiveValidator over drug_cache configured by LiveConfigFromEnv(), its rate-limiter state
// beside the database file unless SCRIBE_RATE_DIR says otherwise. Throws
// std::invalid_argument when an environment variable is not usable. `kept` as for
// SqliteDrugCache.
std::unique_ptr<DrugValidator> MakeDrugValidator(sqlite3* db, const Terminology& terminology,
                                                 KeptStatements* kept = nullptr);

}  // namespace scribe::sql
