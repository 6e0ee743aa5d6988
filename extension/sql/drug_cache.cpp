// drug_cache.cpp — drug_cache as a DrugCacheStore, and the connection's validator.
//
//   sqlite3 data.db ".load build/scribe" "SELECT rxnorm_lookup('sertaline')"
//   sqlite3 data.db "SELECT source, count(*) FROM drug_cache GROUP BY source"
//   sqlite3 data.db "SELECT endpoint, term, status, fresh FROM drug_cache_status"
//
// One row per key (UPSERT: concurrent graders refresh a row, never duplicate it; an older
// fetch never overwrites a newer one). Timestamps are written as
// strftime('%Y-%m-%dT%H:%M:%fZ'), so `DELETE FROM drug_cache WHERE expires_at <
// strftime('%Y-%m-%dT%H:%M:%fZ', 'now')` purges what has expired.
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3

#include "drug_cache.h"

#include <filesystem>
#include <optional>

#include "rxnav.h"
#include "sqlite_util.h"

namespace scribe::sql {

namespace {

// One use of a statement: the connection's kept one (KeptUse: reset and unbound when the use
// ends) or, without a store, one prepared for this use. Empty when the SQL does not prepare (no
// table: a read-only database, an old schema).
class Use {
 public:
  Use(sqlite3* db, KeptStatements* kept, const char* sql) {
    try {
      if (kept) kept_.emplace(db, *kept, sql);
      else own_ = Prepare(db, sql);
    } catch (const SqlError&) {
    }
  }
  sqlite3_stmt* get() const { return kept_ ? kept_->get() : own_.get(); }

 private:
  std::optional<KeptUse> kept_;
  Stmt own_;
};

}  // namespace

std::optional<CacheRow> SqliteDrugCache::Get(const std::string& key) {
  Use s(db_, kept_,
        "SELECT term, source, status, http_status, response, fetched_at, expires_at FROM drug_cache WHERE key = ?1");
  if (!s.get()) return std::nullopt;
  BindText(s.get(), 1, key);
  if (sqlite3_step(s.get()) != SQLITE_ROW) return std::nullopt;
  CacheRow row;
  row.key = key;
  row.term = ColumnText(s.get(), 0);
  row.source = ColumnText(s.get(), 1);
  row.status = ColumnText(s.get(), 2);
  row.http_status = sqlite3_column_int(s.get(), 3);
  row.response = ColumnText(s.get(), 4);
  std::optional<int64_t> fetched = ParseUtcMillis(ColumnText(s.get(), 5));
  std::optional<int64_t> expires = ParseUtcMillis(ColumnText(s.get(), 6));
  if (!fetched || !expires) return std::nullopt;  // an analyst's hand-edited row: refetch
  row.fetched_at = *fetched;
  row.expires_at = *expires;
  return row;
}

bool SqliteDrugCache::Put(const CacheRow& row) {
  Use s(db_, kept_,
        "INSERT INTO drug_cache (key, term, source, status, http_status, response, fetched_at, expires_at) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) "
        "ON CONFLICT (key) DO UPDATE SET term = excluded.term, source = excluded.source, status = excluded.status, "
        "http_status = excluded.http_status, response = excluded.response, fetched_at = excluded.fetched_at, "
        "expires_at = excluded.expires_at "
        "WHERE excluded.fetched_at >= drug_cache.fetched_at");
  if (!s.get()) return false;
  BindText(s.get(), 1, row.key);
  BindText(s.get(), 2, row.term);
  BindText(s.get(), 3, row.source);
  BindText(s.get(), 4, row.status);
  if (row.http_status) sqlite3_bind_int(s.get(), 5, row.http_status); else sqlite3_bind_null(s.get(), 5);
  if (row.response.empty()) sqlite3_bind_null(s.get(), 6); else BindText(s.get(), 6, row.response);
  BindText(s.get(), 7, FormatUtcMillis(row.fetched_at));
  BindText(s.get(), 8, FormatUtcMillis(row.expires_at));
  return sqlite3_step(s.get()) == SQLITE_DONE;
}

std::unique_ptr<DrugValidator> MakeDrugValidator(sqlite3* db, const Terminology& terminology, KeptStatements* kept) {
  LiveConfig config = LiveConfigFromEnv();
  if (config.offline) return std::make_unique<OfflineValidator>(terminology);
  if (!config.rate_state_dir) {
    // Beside the database: the workers of one service share its RxNav budget. An in-memory or
    // temporary database has no directory, so its limiter stays in-process.
    const char* file = sqlite3_db_filename(db, "main");
    config.rate_state_dir = file && *file ? std::filesystem::path(file).parent_path().string() : "";
  }
  return std::make_unique<LiveValidator>(terminology, std::make_unique<SqliteDrugCache>(db, kept), std::move(config));
}

}  // namespace scribe::sql
