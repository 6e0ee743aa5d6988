// drug_cache_store.h — the cache seen by live validation: one row per upstream answer.
//
// A row is an answer as received from one upstream request (RxNav or openFDA), under a
// normalised key '<source>:<endpoint>:<argument>':
//
//   rxnav:approximateTerm:sertaline     rxnav:properties:36437     rxnav:related_in:82728
//   rxnav:version:current               openfda:ndc:sertraline
//
// status is ok (an answer), not_found (a negative answer: no candidate, unknown id, openFDA
// 404) or error (an HTTP error or an unusable body; transport failures are never stored:
// nothing answered). The SQLite implementation is extension/sql/drug_cache.cpp (table
// drug_cache); MemoryDrugCache serves tests and connections without a writable database.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace scribe {

struct CacheRow {
  std::string key;
  std::string term;         // the argument as first asked ("Sertaline", "36437")
  std::string source;       // which upstream answered: rxnav, openfda
  std::string status;       // ok, not_found, error
  int http_status = 0;      // 0 when unknown
  std::string response;     // the body as received (capped); empty for errors without one
  int64_t fetched_at = 0;   // Unix milliseconds
  int64_t expires_at = 0;   // Unix milliseconds
};

class DrugCacheStore {
 public:
  virtual ~DrugCacheStore() = default;
  // The row under a key, fresh or expired; nothing when absent or the store is unreadable.
  virtual std::optional<CacheRow> Get(const std::string& key) = 0;
  // Inserts or replaces the row under row.key (one row per key; a newer fetch wins).
  // Returns false when the store could not write (read-only, busy): caching is best effort.
  virtual bool Put(const CacheRow& row) = 0;
};

// An in-process store (thread-safe).
class MemoryDrugCache : public DrugCacheStore {
 public:
  std::optional<CacheRow> Get(const std::string& key) override;
  bool Put(const CacheRow& row) override;
  size_t size() const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, CacheRow> rows_;
};

// "2026-11-29T10:00:00.000Z" (the format of every timestamp column, strftime('%Y-%m-%dT%H:%M:%fZ')).
std::string FormatUtcMillis(int64_t unix_ms);
// "2026-11-29T10:00:00Z" (as reasons print it).
std::string FormatUtcSeconds(int64_t unix_ms);
// Parses "YYYY-MM-DDTHH:MM:SS[.fff]Z" (also with a space for 'T' and without 'Z'); nothing if malformed.
std::optional<int64_t> ParseUtcMillis(std::string_view text);

}  // namespace scribe
