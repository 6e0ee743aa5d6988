// api.cpp — routing and the endpoint handlers of api.h.
#include "api.h"

#include <sqlite3.h>
#include <time.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <exception>
#include <new>

#include "embedded.h"
#include "grade.h"
#include "hash.h"
#include "sqlite_util.h"
#include "validate.h"

namespace scribe::http {

namespace {

constexpr const char* kJsonCache = "no-cache";
// Cached answers per worker before the cache is emptied (badges are keyed by vendor).
constexpr std::size_t kMaxCachedAnswers = 1024;

// Equal strings in time independent of where they differ (key hashes).
bool SameSecret(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

bool IsSubmissionId(std::string_view id) {
  if (id.size() != 16) return false;
  for (char c : id)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

Response Json(int status, std::string body) {
  Response r;
  r.status = status;
  r.body = std::move(body);
  r.body += '\n';
  r.headers.emplace_back("Cache-Control", kJsonCache);
  return r;
}

std::int64_t UnixMillis() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

// "30 s", "1.5 s"
std::string FormatMs(std::int64_t ms) {
  char buf[32];
  if (ms % 1000 == 0)
    std::snprintf(buf, sizeof buf, "%lld s", static_cast<long long>(ms / 1000));
  else
    std::snprintf(buf, sizeof buf, "%.1f s", static_cast<double>(ms) / 1000.0);
  return buf;
}

// 2026-11-29T10:00:00.250Z
std::string FormatUtcMillis(std::int64_t ms) {
  time_t seconds = static_cast<time_t>(ms / 1000);
  tm utc{};
  gmtime_r(&seconds, &utc);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday,
                utc.tm_hour, utc.tm_min, utc.tm_sec, static_cast<int>(ms % 1000));
  return buf;
}

// The error code of a failure to put data on disk (IsStorageError, database.h): the submission
// was not stored through no fault of its own.
const char* StorageErrorCode(int code) { return (code & 0xFF) == SQLITE_FULL ? "storage_full" : "storage_error"; }

// The answer to an abandoned submission (nginx has usually answered or closed already).
Response NotDone(const std::string& why) {
  std::fprintf(stderr, "scribe-fcgi[%d]: submission abandoned: %s\n", static_cast<int>(getpid()), why.c_str());
  return JsonError(503, "deadline_passed", why + "; the submission was not stored");
}

Response MethodNotAllowed(const char* allow, const std::string& method) {
  Response r = JsonError(405, "method_not_allowed", method + " is not allowed here; use " + std::string(allow));
  r.headers.emplace_back("Allow", allow);
  return r;
}

// One route: a fixed path, or a prefix whose remainder (non-empty, no '/') is the parameter.
bool TakeParam(std::string_view path, std::string_view prefix, std::string_view suffix, std::string& param) {
  if (!path.starts_with(prefix) || !path.ends_with(suffix) || path.size() <= prefix.size() + suffix.size()) return false;
  std::string_view rest = path.substr(prefix.size(), path.size() - prefix.size() - suffix.size());
  if (rest.find('/') != std::string_view::npos) return false;
  param.assign(rest);
  return true;
}

}  // namespace

Api::Api(Database& db, ApiOptions options)
    : db_(db), options_(std::move(options)), storage_(options_.storage ? options_.storage : &own_storage_) {}

Response Api::Handle(const Request& request) {
  std::string_view path = request.path;
  if (!path.starts_with(options_.mount_prefix)) return JsonError(404, "not_found", "no such route: " + request.path);
  path.remove_prefix(options_.mount_prefix.size());
  const bool get = request.method == "GET" || request.method == "HEAD";
  const char* kGet = "GET, HEAD";
  std::string param;

  // The public reads the edge may keep until the end of the current second (nginx's
  // fastcgi_cache reads X-Accel-Expires and never passes it on): what a commit changes there is
  // visible within 1 s. Errors of the program itself (5xx) are never kept.
  auto edge = [](Response r) {
    if (r.status < 500) r.headers.emplace_back("X-Accel-Expires", "@" + std::to_string(UnixMillis() / 1000));
    return r;
  };

  if (path == "/health") return get ? Health() : MethodNotAllowed(kGet, request.method);
  if (path == "/api/scripts") return get ? edge(Scripts()) : MethodNotAllowed(kGet, request.method);
  if (TakeParam(path, "/api/scripts/", "", param)) return get ? edge(Script(param)) : MethodNotAllowed(kGet, request.method);
  if (path == "/api/submit") return request.method == "POST" ? Submit(request) : MethodNotAllowed("POST", request.method);
  if (TakeParam(path, "/api/submissions/", "", param))
    return get ? StoredSubmission(param) : MethodNotAllowed(kGet, request.method);
  if (path == "/api/leaderboard") return get ? edge(Leaderboard()) : MethodNotAllowed(kGet, request.method);
  if (TakeParam(path, "/api/badge/", ".svg", param))
    return get ? edge(Badge(param, request.if_none_match)) : MethodNotAllowed(kGet, request.method);
  if (path == "/api/methodology") return get ? edge(Methodology()) : MethodNotAllowed(kGet, request.method);
  if (path == "/api/openapi.json") return get ? edge(OpenApi()) : MethodNotAllowed(kGet, request.method);
  if (TakeParam(path, "/api/vendors/", "/claim", param))
    return request.method == "POST" ? Claim(param) : MethodNotAllowed("POST", request.method);
  if (TakeParam(path, "/api/vendors/", "/trials", param))
    return get ? VendorTrials(param) : MethodNotAllowed(kGet, request.method);
  if (TakeParam(path, "/api/vendors/", "", param))
    return get ? Vendor(param, request.query) : MethodNotAllowed(kGet, request.method);
  return JsonError(404, "not_found", "no such route: " + request.path);
}

const Response* Api::Cached(const std::string& key) {
  // Cluster mode: the record changes on the store, which this file's data_version does not see;
  // the edge's cache (at most 1 s, X-Accel-Expires) is the only one.
  if (db_.store()) return nullptr;
  std::int64_t version = db_.DataVersion();
  if (version != cache_version_) {
    cache_.clear();
    cache_version_ = version;
  }
  auto it = cache_.find(key);
  return it == cache_.end() ? nullptr : &it->second;
}

const Response& Api::Remember(const std::string& key, Response response) {
  if (db_.store()) {
    uncached_ = std::move(response);
    return uncached_;
  }
  if (cache_.size() >= kMaxCachedAnswers) cache_.clear();
  return cache_.insert_or_assign(key, std::move(response)).first->second;
}

Response Api::JsonBody(const char* endpoint) {
  if (const Response* hit = Cached(endpoint)) return *hit;
  Query q = db_.Run(endpoint);
  if (!q.Step()) throw std::logic_error(std::string(endpoint) + ".sql returned no row");
  return Remember(endpoint, Json(200, q.Text(0)));
}

Response Api::Health() {
  Query q = db_.Run("health");
  if (!q.Step()) throw std::logic_error("health.sql returned no row");
  nlohmann::ordered_json body = nlohmann::ordered_json::parse(q.Text(0));  // health.sql's key order
  bool ok = q.Int(1) != 0;
  // Storage: failing while the last failed commit is newer than the last successful one.
  std::int64_t failed_at = storage_->failed_at_ms.load(), stored_at = storage_->stored_at_ms.load();
  if (failed_at > 0 && failed_at >= stored_at) {
    int code = storage_->failed_code.load();
    body["storage"] = {{"ok", false},
                       {"code", StorageErrorCode(code)},
                       {"error", sqlite3_errstr(code)},
                       {"failed_at", FormatUtcMillis(failed_at)}};
    ok = false;
  } else {
    body["storage"] = {{"ok", true}};
  }
  if (StoreClient* store = db_.store()) {
    // Cluster mode: can this grader reach the store of record? (One read on the leader, at most
    // 1 s: an edge's health check must not wait on a store that is down.)
    StoreAnswer a = store->Query({"SELECT 1"}, 1000);
    if (a.kind == StoreAnswer::kOk) {
      body["store"] = {{"ok", true}};
    } else {
      body["store"] = {{"ok", false}, {"code", "store_unavailable"}, {"error", a.message}};
      ok = false;
    }
  }
  body["ok"] = ok;
  return Json(ok ? 200 : 503, body.dump());
}

Response Api::Scripts() { return JsonBody("scripts"); }

Response Api::Script(const std::string& id) {
  Query q = db_.Run("script");
  q.Bind(":script_id", id);
  if (!q.Step()) return JsonError(404, "unknown_trial", "unknown trial '" + id + "'");
  return Json(200, q.Text(0));
}

Response Api::Submit(const Request& request) {
  // Size first, without reading: a missing or malformed length is never trusted.
  if (!request.content_length) return JsonError(411, "length_required", "Content-Length is required");
  if (*request.content_length > kMaxBodyBytes)
    return JsonError(413, "body_too_large", "request body is larger than 256 KB (" + std::to_string(kMaxBodyBytes) + " bytes)");
  if (!IsJsonMediaType(request.content_type))
    return JsonError(415, "unsupported_media_type", "Content-Type must be application/json");
  std::string body;
  if (!request.read_body(body)) return JsonError(400, "incomplete_body", "request body ended before Content-Length bytes");

  auto parsed = ParseSubmission(body);
  if (auto* problem = std::get_if<BodyProblem>(&parsed)) return JsonError(problem->status, problem->code, problem->message);
  const auto& s = std::get<Submission>(parsed);

  // No work after the client's deadline: a request that waited in the queue past it is not
  // graded, and one that went past it while grading is not stored.
  if (std::string why = Abandoned(request); !why.empty()) return NotDone(why);
  if (auto refused = Unauthorized(s.vendor, request)) return *refused;
  if (auto refused = SealedAttempt(s, request)) return *refused;
  std::string result;
  {
    Query grade = db_.Run("grade");
    grade.Bind(":script_id", s.script_id).Bind(":scribe_output", s.scribe_output);
    if (!grade.Step() || grade.IsNull(0)) return JsonError(404, "unknown_trial", "unknown trial '" + s.script_id + "'");
    result = grade.Text(0);
  }
  if (!s.corpus_hash.empty()) {
    std::string loaded = nlohmann::json::parse(result).value("corpus_hash", "");
    if (loaded != s.corpus_hash)
      return JsonError(409, "corpus_mismatch",
                       "corpus_hash " + s.corpus_hash + " is not the loaded corpus " + loaded + "; nothing was stored");
  }
  if (s.dry_run) {
    // Graded and answered as a submission would be (sealed trials as minimal), never stored.
    Query dry = db_.Run("dry_run");
    dry.Bind(":vendor", s.vendor).Bind(":result", result);
    if (!dry.Step()) throw std::logic_error("dry_run.sql returned no row");
    return Json(200, dry.Text(0));
  }
  // Acknowledged = durable: the writer answers only after the COMMIT that holds this
  // submission returned SQLITE_OK (committer.h: one transaction for every submission queued).
  if (!options_.committer) throw std::logic_error("a read worker got a submission (nginx routes them to the submit socket)");
  StoreOutcome out = options_.committer->Store(
      PendingSubmission{s.vendor, s.scribe_output, result, [this, &request] { return Abandoned(request); }});
  if (out.status == StoreOutcome::kAbandoned) return NotDone(out.why);
  if (out.status == StoreOutcome::kUnknown) {
    // Cluster mode: no store node confirmed or denied the commit in time. Say so, with the id
    // it would have: a GET of it tells the client whether to submit again.
    std::fprintf(stderr, "scribe-fcgi[%d]: submission %s unconfirmed: %s\n", static_cast<int>(getpid()), out.id.c_str(),
                 out.message.c_str());
    // Local mode: committed, but the WAL's fdatasync failed (committer.h): not known to be on
    // disk, and /health says the storage failed.
    if (!db_.store()) RecordStorageFailure(SQLITE_IOERR_FSYNC);
    const std::string tells = ": GET " + options_.mount_prefix + "/api/submissions/" + out.id + " tells";
    Response r = db_.store() ? JsonError(503, "store_unavailable",
                                         "the store of record did not confirm the submission; it may be stored as " +
                                             out.id + tells)
                             : JsonError(503, "storage_error",
                                         "the disk did not confirm the submission; it may be stored as " + out.id + tells);
    r.headers.emplace_back("Retry-After", "1");
    return r;
  }
  if (out.status == StoreOutcome::kFailed && out.code == SQLITE_CONSTRAINT_FOREIGNKEY && db_.store()) {
    // Cluster mode: the store has no row for this grader's corpus version.
    std::string loaded = nlohmann::json::parse(result).value("corpus_hash", "");
    std::fprintf(stderr, "scribe-fcgi[%d]: corpus %s is not published on the store (%s)\n", static_cast<int>(getpid()),
                 loaded.c_str(), out.message.c_str());
    return JsonError(503, "corpus_not_published",
                     "this grader's corpus " + loaded + " is not published on the store of record; nothing was stored");
  }
  if (out.status == StoreOutcome::kFailed) {
    if (!IsStorageError(out.code)) throw scribe::sql::SqlError(out.code, out.message);  // busy and the rest: the firewall's answer
    RecordStorageFailure(out.code);
    std::fprintf(stderr, "scribe-fcgi[%d]: submission not stored: %s (SQLite %d)\n", static_cast<int>(getpid()),
                 out.message.c_str(), out.code);
    if ((out.code & 0xFF) == SQLITE_FULL)
      return JsonError(507, "storage_full", "the database's disk is full; the submission was not stored");
    return JsonError(503, "storage_error", "the database could not be written; the submission was not stored");
  }
  storage_->stored_at_ms = UnixMillis();
  // The public view of the stored result, made here on the request thread rather than by the one
  // writer; from the grade and the row's own facts where that gives the same bytes.
  std::optional<std::string> shown = PublicSubmissionText(result, out.id, s.vendor, out.created_at);
  Response r = Json(201, shown ? std::move(*shown) : PublicResultText(out.stored));
  r.headers.emplace_back("Location", options_.mount_prefix + "/api/submissions/" + out.id);
  return r;
}

Response Api::Claim(const std::string& vendor) {
  if (auto problem = VendorProblem(vendor)) return JsonError(422, "invalid_field", *problem);
  std::string key = "st_" + RandomHex(32);  // 256 bits; only its SHA-256 is stored
  if (StoreClient* store = db_.store()) return ClaimOnStore(*store, vendor, key);
  try {
    WriteTransaction tx(db_);
    std::string name;
    {
      Query claim = db_.Run("claim");
      claim.Bind(":vendor", vendor).Bind(":key_sha256", Sha256Hex(key));
      if (!claim.Step())
        return JsonError(409, "vendor_claimed", "vendor '" + vendor + "' is already claimed; its key was shown once, to whoever claimed it");
      name = claim.Text(0);
      claim.Finish();
    }
    tx.Commit();
    storage_->stored_at_ms = UnixMillis();
    nlohmann::ordered_json body = {
        {"vendor", name},
        {"key", key},
        {"message", "keep this key: it is shown once and never stored. Submissions as this vendor now need "
                    "the header Authorization: Bearer <key>."}};
    return Json(201, body.dump());
  } catch (const scribe::sql::SqlError& e) {
    if (!IsStorageError(e.code())) throw;
    RecordStorageFailure(e.code());
    if ((e.code() & 0xFF) == SQLITE_FULL)
      return JsonError(507, "storage_full", "the database's disk is full; the claim was not stored");
    return JsonError(503, "storage_error", "the database could not be written; the claim was not stored");
  }
}

// Cluster mode: claim.sql without RETURNING on the store. No row changed is either a name claimed
// before or this very claim, stored by an attempt whose answer was lost (the client tried the next
// node): the stored key's digest tells which.
Response Api::ClaimOnStore(StoreClient& store, const std::string& vendor, const std::string& key) {
  const std::string digest = Sha256Hex(key);
  StoreStatement claim = db_.StoreWrite("claim");
  claim.params["vendor"] = vendor;
  claim.params["key_sha256"] = digest;
  StoreAnswer a = store.Exec({claim});
  if (a.kind == StoreAnswer::kUnavailable || a.kind == StoreAnswer::kBusy) {
    std::fprintf(stderr, "scribe-fcgi[%d]: claim not stored: %s\n", static_cast<int>(getpid()), a.message.c_str());
    return JsonError(503, "store_unavailable", "the store of record cannot be reached; the claim was not stored");
  }
  if (a.kind != StoreAnswer::kOk) throw std::runtime_error("the store refused a claim: " + a.message);
  StoreAnswer row = store.Query({"SELECT name, key_sha256 FROM vendors WHERE vendor_key = scribe_vendor_key(:vendor)",
                                 {{"vendor", vendor}}});
  if (row.kind != StoreAnswer::kOk) throw StoreUnavailable(row.message);
  const auto& rows = row.body["rows"];
  if (rows.empty() || !rows[0][1].is_string() || !SameSecret(rows[0][1].get<std::string>(), digest))
    return JsonError(409, "vendor_claimed", "vendor '" + vendor + "' is already claimed; its key was shown once, to whoever claimed it");
  storage_->stored_at_ms = UnixMillis();
  nlohmann::ordered_json body = {
      {"vendor", rows[0][0].get<std::string>()},
      {"key", key},
      {"message", "keep this key: it is shown once and never stored. Submissions as this vendor now need "
                  "the header Authorization: Bearer <key>."}};
  return Json(201, body.dump());
}

Response Api::Vendor(const std::string& vendor, const std::string& query) {
  if (auto problem = VendorProblem(vendor)) return JsonError(404, "unknown_vendor", "unknown vendor '" + vendor + "'");
  // ?before=<submission id>: the page of runs older than that one (keyset pagination).
  std::string before;
  for (std::string_view rest = query; !rest.empty();) {
    std::size_t amp = rest.find('&');
    std::string_view pair = rest.substr(0, amp);
    rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
    if (pair.starts_with("before=")) before.assign(pair.substr(7));
    else if (!pair.empty()) return JsonError(400, "invalid_query", "unknown query parameter; the only one is before=<submission id>");
  }
  if (!before.empty() && !IsSubmissionId(before))
    return JsonError(400, "invalid_cursor", "before must be a submission id (16 hexadecimal characters)");
  std::string key = "vendor:" + vendor + "?" + before;
  if (const Response* hit = Cached(key)) return *hit;
  Query q = db_.Run("vendor");
  q.Bind(":vendor", vendor);
  if (!before.empty()) q.Bind(":before", before);  // unbound: NULL, the newest page
  if (!q.Step() || q.IsNull(0)) return JsonError(404, "unknown_vendor", "unknown vendor '" + vendor + "'");
  return Remember(key, Json(200, q.Text(0)));
}

Response Api::VendorTrials(const std::string& vendor) {
  if (auto problem = VendorProblem(vendor)) return JsonError(404, "unknown_vendor", "unknown vendor '" + vendor + "'");
  std::string key = "vendor-trials:" + vendor;
  if (const Response* hit = Cached(key)) return *hit;
  Query q = db_.Run("vendor_trials");
  q.Bind(":vendor", vendor);
  if (!q.Step() || q.IsNull(0)) return JsonError(404, "unknown_vendor", "unknown vendor '" + vendor + "'");
  return Remember(key, Json(200, q.Text(0)));
}

std::optional<Response> Api::SealedAttempt(const Submission& s, const Request& request) {
  {
    // Nearly every trial is public: find that out with a read, without the write lock every
    // other submit and the group-commit writers need.
    Query q = db_.Run("sealed_attempts");
    q.Bind(":script_id", s.script_id).Bind(":vendor", s.vendor).Bind(":client", request.remote_addr);
    if (!q.Step() || q.Int(0) == 0) return std::nullopt;  // public or unknown: nothing to count
  }
  const std::string limit = std::to_string(options_.sealed_attempts);
  const std::string rest = " times (dry runs included), the limit for this version of the trial: any score of a sealed "
                           "trial tells something about its checklist";
  if (StoreClient* store = db_.store()) {
    // Cluster mode: taken in one statement on the store (sealed_attempt_take.sql); an attempt
    // whose answer was lost counts, which errs on the side of the checklist.
    StoreStatement take = db_.StoreWrite("sealed_attempt_take");
    take.params["script_id"] = s.script_id;
    take.params["vendor"] = s.vendor;
    take.params["client"] = request.remote_addr;
    take.params["dry_run"] = s.dry_run ? "1" : "0";
    take.params["limit"] = options_.sealed_attempts;
    StoreAnswer a = store->Exec({take});
    if (a.kind == StoreAnswer::kUnavailable || a.kind == StoreAnswer::kBusy)
      return JsonError(503, "store_unavailable", "the store of record cannot be reached; nothing was graded");
    if (a.kind != StoreAnswer::kOk) throw std::runtime_error("the store refused a sealed attempt: " + a.message);
    if (a.body["results"][0].value("rows_affected", 0) == 1) return std::nullopt;
    StoreStatement counts = db_.StoreWrite("sealed_attempts");
    counts.params["script_id"] = s.script_id;
    counts.params["vendor"] = s.vendor;
    counts.params["client"] = request.remote_addr;
    StoreAnswer c = store->Query(counts);
    if (c.kind != StoreAnswer::kOk) throw StoreUnavailable(c.message);
    const auto& rows = c.body["rows"];
    if (rows.empty() || rows[0][0] == 0) return std::nullopt;  // not sealed on the store: nothing to count
    if (rows[0][1].get<std::int64_t>() >= options_.sealed_attempts)
      return JsonError(429, "sealed_attempts_used", "vendor '" + s.vendor + "' has graded sealed trial '" + s.script_id + "' " + limit + rest);
    return JsonError(429, "sealed_attempts_used", "this address has graded sealed trial '" + s.script_id + "' " + limit + rest);
  }
  try {
    WriteTransaction tx(db_);  // sealed: count and record the attempt under the lock
    std::int64_t by_vendor = 0, by_client = 0;
    {
      Query q = db_.Run("sealed_attempts");
      q.Bind(":script_id", s.script_id).Bind(":vendor", s.vendor).Bind(":client", request.remote_addr);
      if (!q.Step() || q.Int(0) == 0) return std::nullopt;  // public or unknown: nothing to count
      by_vendor = q.Int(1);
      by_client = q.Int(2);
      q.Finish();
    }
    if (by_vendor >= options_.sealed_attempts)
      return JsonError(429, "sealed_attempts_used", "vendor '" + s.vendor + "' has graded sealed trial '" + s.script_id + "' " + limit + rest);
    if (by_client >= options_.sealed_attempts)
      return JsonError(429, "sealed_attempts_used", "this address has graded sealed trial '" + s.script_id + "' " + limit + rest);
    {
      Query add = db_.Run("sealed_attempt_add");
      add.Bind(":script_id", s.script_id).Bind(":vendor", s.vendor).Bind(":client", request.remote_addr);
      add.Bind(":dry_run", s.dry_run ? "1" : "0");
      add.Step();
      add.Finish();
    }
    tx.Commit();
    return std::nullopt;
  } catch (const scribe::sql::SqlError& e) {
    if (!IsStorageError(e.code())) throw;
    RecordStorageFailure(e.code());
    return JsonError(503, "storage_error", "the database could not be written; nothing was graded");
  }
}

std::optional<Response> Api::Unauthorized(const std::string& vendor, const Request& request) {
  std::string stored;
  {
    Query q = db_.Run("vendor_key");
    q.Bind(":vendor", vendor);
    if (!q.Step() || q.IsNull(0)) return std::nullopt;  // unclaimed: anyone may submit, as the seed API
    stored = q.Text(0);
  }
  constexpr std::string_view kBearer = "Bearer ";
  std::string_view auth = request.authorization;
  if (auth.size() <= kBearer.size() || auth.substr(0, kBearer.size()) != kBearer)
    return JsonError(403, "vendor_claimed",
                     "vendor '" + vendor + "' is claimed: send its key as the header Authorization: Bearer <key>");
  if (!SameSecret(Sha256Hex(auth.substr(kBearer.size())), stored))
    return JsonError(403, "wrong_key", "the key does not belong to vendor '" + vendor + "'");
  return std::nullopt;
}

std::string Api::Abandoned(const Request& request) const {
  if (options_.deadline_ms > 0 && request.start_ms) {
    std::int64_t age = UnixMillis() - *request.start_ms;
    if (age > options_.deadline_ms)
      return "the request is older than the " + FormatMs(options_.deadline_ms) + " deadline";
  }
  if (request.client_gone && request.client_gone()) return "the client has gone";
  return {};
}

void Api::RecordStorageFailure(int code) {
  storage_->failed_code = code;
  storage_->failed_at_ms = UnixMillis();
}

Response Api::StoredSubmission(const std::string& id) {
  if (!IsSubmissionId(id)) return JsonError(404, "unknown_submission", "unknown submission '" + id + "'");
  Query q = db_.Run("submission");
  q.Bind(":id", id);
  if (!q.Step()) return JsonError(404, "unknown_submission", "unknown submission '" + id + "'");
  return Json(200, q.Text(0));
}

Response Api::Leaderboard() { return JsonBody("leaderboard"); }

Response Api::Badge(const std::string& vendor, const std::string& if_none_match) {
  std::string key = "badge:" + vendor;
  const Response* badge = Cached(key);
  if (!badge) {
    Query q = db_.Run("badge");
    q.Bind(":vendor", vendor);
    if (!q.Step()) throw std::logic_error("badge.sql returned no row");
    Response r;
    r.status = q.Int(0) ? 200 : 404;
    r.content_type = "image/svg+xml";
    r.body = q.Text(1);
    r.headers.emplace_back("Cache-Control", "no-cache");
    r.headers.emplace_back("ETag", "\"" + Sha256Hex(r.body) + "\"");
    badge = &Remember(key, std::move(r));
  }
  std::string_view etag;
  for (const auto& [name, value] : badge->headers)
    if (name == "ETag") etag = value;
  if (badge->status == 200 && !if_none_match.empty() && IfNoneMatchMatches(if_none_match, etag)) {
    Response not_modified = *badge;
    not_modified.status = 304;
    not_modified.body.clear();
    return not_modified;
  }
  return *badge;
}

Response Api::Methodology() { return JsonBody("methodology"); }

Response Api::OpenApi() {
  // docs/openapi.json as built into the program: the description of exactly this build's API.
  std::string_view doc = embedded_file("docs/openapi.json");
  while (!doc.empty() && doc.back() == '\n') doc.remove_suffix(1);
  return Json(200, std::string(doc));
}

Response ErrorResponse(std::exception_ptr error) noexcept {
  try {
    try {
      std::rethrow_exception(error);
    } catch (const scribe::sql::SqlError& e) {
      int primary = e.code() & 0xFF;
      std::fprintf(stderr, "scribe-fcgi[%d]: SQLite error %d: %s\n", static_cast<int>(getpid()), e.code(), e.what());
      if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED) {
        Response r = JsonError(503, "busy", "the database is busy; retry shortly");
        r.headers.emplace_back("Retry-After", "1");
        return r;
      }
      if (primary == SQLITE_NOMEM) return JsonError(503, "overloaded", "out of memory; retry shortly");
      return JsonError(500, "internal_error", "internal error");
    } catch (const StoreUnavailable& e) {
      std::fprintf(stderr, "scribe-fcgi[%d]: store unavailable: %s\n", static_cast<int>(getpid()), e.what());
      Response r = JsonError(503, "store_unavailable", "the store of record cannot be reached; retry shortly");
      r.headers.emplace_back("Retry-After", "1");
      return r;
    } catch (const std::bad_alloc&) {
      std::fprintf(stderr, "scribe-fcgi[%d]: out of memory\n", static_cast<int>(getpid()));
      return JsonError(503, "overloaded", "out of memory; retry shortly");
    } catch (const std::exception& e) {
      std::fprintf(stderr, "scribe-fcgi[%d]: %s\n", static_cast<int>(getpid()), e.what());
      return JsonError(500, "internal_error", "internal error");
    } catch (...) {
      std::fprintf(stderr, "scribe-fcgi[%d]: unknown exception\n", static_cast<int>(getpid()));
      return JsonError(500, "internal_error", "internal error");
    }
  } catch (...) {
    Response r;  // building the error itself failed (no memory): a fixed answer
    r.status = 503;
    r.body = "{\"error\":{\"code\":\"overloaded\",\"message\":\"out of memory\"}}\n";
    return r;
  }
}

}  // namespace scribe::http
