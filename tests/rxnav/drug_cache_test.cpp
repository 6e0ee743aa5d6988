// drug_cache_test.cpp — the SQLite drug_cache store: one row per key, newer fetch wins,
// best effort when the table cannot be used, the analyst view, the purge statement, and the
// validator chosen from the environment.
#include <gtest/gtest.h>

#include <sqlite3.h>

#include <cstdlib>

#include "drug_cache.h"
#include "rxnav.h"
#include "store.h"

namespace scribe {
namespace {

constexpr int64_t kT0 = 1795946400000;  // 2026-11-29T10:00:00Z

CacheRow Row(const std::string& key, const std::string& status, int64_t fetched, int64_t ttl_ms) {
  return {key, "Sertaline", key.substr(0, key.find(':')), status, 200, R"({"x":1})", fetched, fetched + ttl_ms};
}

struct Db {
  explicit Db(const char* path = ":memory:") {
    sqlite3_open(path, &db);
    sql::Migrate(db);
  }
  ~Db() { sqlite3_close(db); }
  std::string Rows(const std::string& sql) {
    std::string out;
    sqlite3_stmt* s = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
    while (sqlite3_step(s) == SQLITE_ROW) {
      for (int i = 0; i < sqlite3_column_count(s); ++i) {
        const unsigned char* t = sqlite3_column_text(s, i);
        out += (i ? "|" : "") + std::string(t ? reinterpret_cast<const char*>(t) : "NULL");
      }
      out += "\n";
    }
    sqlite3_finalize(s);
    return out;
  }
  sqlite3* db = nullptr;
};

TEST(SqliteDrugCache, RoundTripAndUpsert) {
  Db db;
  sql::SqliteDrugCache cache(db.db);
  EXPECT_FALSE(cache.Get("rxnav:approximateTerm:sertaline"));
  ASSERT_TRUE(cache.Put(Row("rxnav:approximateTerm:sertaline", "ok", kT0, 7 * 86400000LL)));
  auto r = cache.Get("rxnav:approximateTerm:sertaline");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->term, "Sertaline");
  EXPECT_EQ(r->source, "rxnav");
  EXPECT_EQ(r->status, "ok");
  EXPECT_EQ(r->http_status, 200);
  EXPECT_EQ(r->response, R"({"x":1})");
  EXPECT_EQ(r->fetched_at, kT0);
  EXPECT_EQ(r->expires_at, kT0 + 7 * 86400000LL);
  // a newer fetch replaces the row; an older one does not
  ASSERT_TRUE(cache.Put(Row("rxnav:approximateTerm:sertaline", "not_found", kT0 + 1000, 86400000LL)));
  ASSERT_TRUE(cache.Put(Row("rxnav:approximateTerm:sertaline", "error", kT0 - 1000, 600000)));
  EXPECT_EQ(db.Rows("SELECT key, status, fetched_at, expires_at FROM drug_cache"),
            "rxnav:approximateTerm:sertaline|not_found|2026-11-29T10:00:01.000Z|2026-11-30T10:00:01.000Z\n");
}

TEST(SqliteDrugCache, TwoConnectionsNeverDuplicateAKey) {
  std::string path = ::testing::TempDir() + "drug_cache_" + std::to_string(getpid()) + ".db";
  std::remove(path.c_str());
  {
    Db a(path.c_str()), b(path.c_str());
    sql::SqliteDrugCache ca(a.db), cb(b.db);
    ASSERT_TRUE(ca.Put(Row("openfda:ndc:sertraline", "ok", kT0, 1000)));
    ASSERT_TRUE(cb.Put(Row("openfda:ndc:sertraline", "ok", kT0 + 5, 1000)));
    EXPECT_EQ(a.Rows("SELECT count(*), max(fetched_at) FROM drug_cache"), "1|2026-11-29T10:00:00.005Z\n");
  }
  std::remove(path.c_str());
  std::remove((path + "-wal").c_str());
  std::remove((path + "-shm").c_str());
}

TEST(SqliteDrugCache, BestEffortWithoutATable) {
  sqlite3* db = nullptr;
  sqlite3_open(":memory:", &db);  // no migration: no drug_cache
  sql::SqliteDrugCache cache(db);
  EXPECT_FALSE(cache.Get("rxnav:version:current"));
  EXPECT_FALSE(cache.Put(Row("rxnav:version:current", "ok", kT0, 1000)));
  sqlite3_close(db);
}

TEST(SqliteDrugCache, AnalystViewAndPurgeStatement) {
  Db db;
  sql::SqliteDrugCache cache(db.db);
  int64_t now = SystemClockMillis();
  cache.Put(Row("rxnav:approximateTerm:sertaline", "ok", now, 7 * 86400000LL));
  cache.Put(Row("rxnav:properties:36437", "ok", now - 10 * 86400000LL, 7 * 86400000LL));  // expired
  cache.Put(Row("openfda:ndc:sertraline", "not_found", now, 86400000LL));
  EXPECT_EQ(db.Rows("SELECT key, endpoint, status, fresh, response_bytes FROM drug_cache_status ORDER BY key"),
            "openfda:ndc:sertraline|ndc|not_found|1|7\n"
            "rxnav:approximateTerm:sertaline|approximateTerm|ok|1|7\n"
            "rxnav:properties:36437|properties|ok|0|7\n");
  EXPECT_EQ(db.Rows("SELECT source, count(*) FROM drug_cache GROUP BY source"), "openfda|1\nrxnav|2\n");
  // the documented purge statement (docs/live-validation.md)
  char* err = nullptr;
  ASSERT_EQ(sqlite3_exec(db.db, "DELETE FROM drug_cache WHERE expires_at < strftime('%Y-%m-%dT%H:%M:%fZ', 'now')",
                         nullptr, nullptr, &err), SQLITE_OK);
  EXPECT_EQ(db.Rows("SELECT key FROM drug_cache ORDER BY key"), "openfda:ndc:sertraline\nrxnav:approximateTerm:sertaline\n");
  EXPECT_EQ(db.Rows("EXPLAIN QUERY PLAN DELETE FROM drug_cache WHERE expires_at < '2026'").find("drug_cache_expires") !=
                std::string::npos, true);
}

TEST(MakeDrugValidator, OfflineSwitchMeansNoNetworkObjectAtAll) {
  Db db;
  setenv("SCRIBE_OFFLINE", "1", 1);
  auto v = sql::MakeDrugValidator(db.db, DefaultTerminology());
  unsetenv("SCRIBE_OFFLINE");
  EXPECT_NE(dynamic_cast<OfflineValidator*>(v.get()), nullptr);
  setenv("SCRIBE_RXNAV_URL", "http://127.0.0.1:9/REST", 1);
  auto live = sql::MakeDrugValidator(db.db, DefaultTerminology());
  unsetenv("SCRIBE_RXNAV_URL");
  ASSERT_NE(dynamic_cast<LiveValidator*>(live.get()), nullptr);
  EXPECT_EQ(dynamic_cast<LiveValidator*>(live.get())->config().rxnav_base, "http://127.0.0.1:9/REST");
}

}  // namespace
}  // namespace scribe
