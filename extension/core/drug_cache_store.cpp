// drug_cache_store.cpp — the in-process cache and the timestamp format (see drug_cache_store.h).
#include "drug_cache_store.h"

#include <cstdio>
#include <ctime>

namespace scribe {

std::optional<CacheRow> MemoryDrugCache::Get(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = rows_.find(key);
  if (it == rows_.end()) return std::nullopt;
  return it->second;
}

bool MemoryDrugCache::Put(const CacheRow& row) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = rows_.find(row.key);
  if (it != rows_.end() && it->second.fetched_at > row.fetched_at) return true;  // a newer fetch wins
  rows_[row.key] = row;
  return true;
}

size_t MemoryDrugCache::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return rows_.size();
}

namespace {

std::string Format(int64_t unix_ms, bool millis) {
  int64_t secs = unix_ms >= 0 ? unix_ms / 1000 : (unix_ms - 999) / 1000;
  int ms = static_cast<int>(unix_ms - secs * 1000);
  std::time_t t = static_cast<std::time_t>(secs);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  if (millis)
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                  tm.tm_hour, tm.tm_min, tm.tm_sec, ms);
  else
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                  tm.tm_hour, tm.tm_min, tm.tm_sec);
  return buf;
}

}  // namespace

std::string FormatUtcMillis(int64_t unix_ms) { return Format(unix_ms, true); }
std::string FormatUtcSeconds(int64_t unix_ms) { return Format(unix_ms, false); }

std::optional<int64_t> ParseUtcMillis(std::string_view text) {
  int y, mo, d, h, mi, s, consumed = 0;
  std::string t(text);
  if (t.size() < 19) return std::nullopt;
  if (t[10] == ' ') t[10] = 'T';
  if (std::sscanf(t.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &s, &consumed) != 6 || consumed != 19)
    return std::nullopt;
  int64_t ms = 0;
  size_t pos = 19;
  if (pos < t.size() && t[pos] == '.') {
    int digits = 0;
    for (++pos; pos < t.size() && t[pos] >= '0' && t[pos] <= '9'; ++pos, ++digits)
      if (digits < 3) ms = ms * 10 + (t[pos] - '0');
    for (; digits < 3; ++digits) ms *= 10;
  }
  if (pos < t.size() && t[pos] == 'Z') ++pos;
  if (pos != t.size()) return std::nullopt;
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = s;
  std::time_t secs = timegm(&tm);
  return static_cast<int64_t>(secs) * 1000 + ms;
}

}  // namespace scribe
