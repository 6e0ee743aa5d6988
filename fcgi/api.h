// api.h — the routes of /scribe-trials: each one a named SQL statement (database.h).
//
//   GET  /health                    health.sql        200 {"ok":true,…}; 503 when no corpus, or
//                                                     when the last commit failed (storage)
//   GET  /api/scripts               scripts.sql       trial cards, no ground truth
//   GET  /api/scripts/:id           script.sql        encounter + instructions, no ground truth
//   POST /api/submit                grade.sql, then submit.sql in an explicit transaction: 201
//                                   with the result, id, vendor only after COMMIT succeeded
//   GET  /api/submissions/:id       submission.sql    the stored result
//   GET  /api/leaderboard           leaderboard.sql   JSON array from the leaderboard view
//   GET  /api/badge/:vendor.svg     badge.sql         SVG, 200 passing / 404 otherwise, ETag, 304
//   GET  /api/methodology           methodology.sql   the grader's rules
//   GET  /api/openapi.json          —                 docs/openapi.json, compiled in: this API
//
// Paths are matched after the mount prefix (default "/scribe-trials"). HEAD is accepted
// wherever GET is. docs/http-api.md lists every status and error code.
//
// Answers of the read-only listings (scripts, leaderboard, badges, methodology) are kept per
// worker while PRAGMA data_version is unchanged, i.e. until anyone commits anything: never
// stale, and the leaderboard view is not recomputed for every reader between submissions. The
// public reads also carry X-Accel-Expires for nginx's edge cache, which keeps them to the end
// of the current second (docs/http-api.md, "Caching"). Submissions are stored by the process's
// Committer (group commit, committer.h).
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <string>

#include "committer.h"
#include "database.h"
#include "http.h"
#include "validate.h"

namespace scribe::http {

// The outcome of the latest commits, shared by every worker (anonymous shared memory from
// main.cpp), so that /health on any worker reports a submission another worker could not store.
struct StorageHealth {
  std::atomic<std::int64_t> failed_at_ms{0};  // Unix ms of the last failed commit; 0 = never
  std::atomic<int> failed_code{0};            // its SQLite extended result code
  std::atomic<std::int64_t> stored_at_ms{0};  // Unix ms of the last successful commit
};

struct ApiOptions {
  std::string mount_prefix = "/scribe-trials";
  // A submission older than this (from the request's start, Request::start_ms) is neither
  // graded nor stored: nginx has given up on it, or is about to. 0 = no deadline.
  std::int64_t deadline_ms = 0;
  StorageHealth* storage = nullptr;  // nullptr: this Api keeps its own
  // Gradings of one sealed trial version per vendor and per client address, dry runs included
  // (any scoring answer is an oracle); then 429.
  int sealed_attempts = 3;
  // The process's writer (committer.h), shared by its request threads; submissions need it.
  Committer* committer = nullptr;
};

class Api {
 public:
  Api(Database& db, ApiOptions options);

  // Answers one request. May throw (SQLite failures, bad_alloc): the caller's firewall maps
  // exceptions to 500/503 with ErrorResponse.
  Response Handle(const Request& request);

 private:
  Response Health();
  Response Scripts();
  Response Script(const std::string& id);
  Response Submit(const Request& request);
  Response Claim(const std::string& vendor);
  Response ClaimOnStore(StoreClient& store, const std::string& vendor, const std::string& key);
  Response Vendor(const std::string& vendor, const std::string& query);
  Response VendorTrials(const std::string& vendor);
  // 403 when `vendor` is claimed and the request does not carry its key; nullopt when it may
  // submit.
  std::optional<Response> Unauthorized(const std::string& vendor, const Request& request);
  // For a sealed trial: records this grading, or answers 429 when the vendor or the client
  // address has used its attempts on the trial's version. nullopt for public trials.
  std::optional<Response> SealedAttempt(const Submission& s, const Request& request);
  // Why a submission must not go on ("the request is older than the 30 s deadline", "the
  // client has gone"), or "" when it may.
  std::string Abandoned(const Request& request) const;
  void RecordStorageFailure(int code);
  Response StoredSubmission(const std::string& id);
  Response Leaderboard();
  Response Badge(const std::string& vendor, const std::string& if_none_match);
  Response Methodology();
  Response OpenApi();
  // A statement with no parameters whose first column is the JSON body (cached).
  Response JsonBody(const char* endpoint);
  // The cached answer for `key`, or nullptr; drops the cache first if the database changed.
  const Response* Cached(const std::string& key);
  const Response& Remember(const std::string& key, Response response);

  Database& db_;
  ApiOptions options_;
  StorageHealth own_storage_;
  StorageHealth* storage_;
  std::int64_t cache_version_ = -1;
  std::map<std::string, Response> cache_;
  Response uncached_;  // cluster mode: Remember's answer, kept for the caller only
};

// The firewall's answer for an exception escaping Handle: SQLITE_BUSY/LOCKED → 503 "busy",
// StoreUnavailable (cluster mode: no store node answered a read) → 503 "store_unavailable",
// SQLITE_NOMEM and bad_alloc → 503 "overloaded", anything else → 500 "internal_error" (the
// detail goes to the log, not to the client). Never throws. (A submission whose commit fails
// for want of storage is answered by Submit itself: 507 "storage_full", 503 "storage_error".)
Response ErrorResponse(std::exception_ptr error) noexcept;

}  // namespace scribe::http
