// api.h — the routes of /scribe-trials: each one a named SQL statement (database.h).
//
//   GET  /health                    health.sql        200 {"ok":true,…} or 503 when no corpus
//   GET  /api/scripts               scripts.sql       trial cards, no ground truth
//   GET  /api/scripts/:id           script.sql        encounter + instructions, no ground truth
//   POST /api/submit                grade.sql, then submit.sql: 201 with the result, id, vendor
//   GET  /api/submissions/:id       submission.sql    the stored result
//   GET  /api/leaderboard           leaderboard.sql   JSON array from the leaderboard view
//   GET  /api/badge/:vendor.svg     badge.sql         SVG, 200 passing / 404 otherwise, ETag, 304
//   GET  /api/methodology           methodology.sql   the grader's rules
//
// Paths are matched after the mount prefix (default "/scribe-trials"). HEAD is accepted
// wherever GET is. docs/http-api.md lists every status and error code.
//
// Answers of the read-only listings (scripts, leaderboard, badges, methodology) are kept per
// worker while PRAGMA data_version is unchanged, i.e. until anyone commits anything: never
// stale, and the leaderboard view is not recomputed for every reader between submissions.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "database.h"
#include "http.h"

namespace scribe::http {

class Api {
 public:
  Api(Database& db, std::string mount_prefix) : db_(db), prefix_(std::move(mount_prefix)) {}

  // Answers one request. May throw (SQLite failures, bad_alloc): the caller's firewall maps
  // exceptions to 500/503 with ErrorResponse.
  Response Handle(const Request& request);

 private:
  Response Health();
  Response Scripts();
  Response Script(const std::string& id);
  Response Submit(const Request& request);
  Response StoredSubmission(const std::string& id);
  Response Leaderboard();
  Response Badge(const std::string& vendor, const std::string& if_none_match);
  Response Methodology();
  // A statement with no parameters whose first column is the JSON body (cached).
  Response JsonBody(const char* endpoint);
  // The cached answer for `key`, or nullptr; drops the cache first if the database changed.
  const Response* Cached(const std::string& key);
  const Response& Remember(const std::string& key, Response response);

  Database& db_;
  std::string prefix_;
  std::int64_t cache_version_ = -1;
  std::map<std::string, Response> cache_;
};

// The firewall's answer for an exception escaping Handle: SQLITE_BUSY/LOCKED → 503 "busy",
// SQLITE_NOMEM and bad_alloc → 503 "overloaded", anything else → 500 "internal_error" (the
// detail goes to the log, not to the client). Never throws.
Response ErrorResponse(std::exception_ptr error) noexcept;

}  // namespace scribe::http
