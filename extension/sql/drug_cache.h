// drug_cache.h — the drug_cache table as the live validator's cache, and the per-connection
// validator chosen from the environment (see docs/live-validation.md).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "drug_cache_store.h"
#include "terminology.h"
#include "validator.h"

struct sqlite3;

namespace scribe::sql {

// DrugCacheStore over drug_cache on one connection. Reads and writes are best effort: a
// missing table, a read-only database or a busy lock read as "not cached" / "not stored",
// never as an error of the grade. Prepares its statements per call (no statement outlives a
// call, so closing the connection is never blocked).
class SqliteDrugCache : public DrugCacheStore {
 public:
  explicit SqliteDrugCache(sqlite3* db) : db_(db) {}
  std::optional<CacheRow> Get(const std::string& key) override;
  bool Put(const CacheRow& row) override;

 private:
  sqlite3* db_;
};

// The validator a connection uses: OfflineValidator when SCRIBE_OFFLINE=1, else a
// LiveValidator over drug_cache configured by LiveConfigFromEnv(), its rate-limiter state
// beside the database file unless SCRIBE_RATE_DIR says otherwise. Throws
// std::invalid_argument when an environment variable is not usable.
std::unique_ptr<DrugValidator> MakeDrugValidator(sqlite3* db, const Terminology& terminology);

}  // namespace scribe::sql
