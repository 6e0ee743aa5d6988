// store_client.h — a grader's calls to the replicated store (cluster/store, docs/scale-out.md).
//
// In cluster mode (scribe-fcgi --store URL,URL,…) the system of record (submissions, grades,
// vendors, standings, sealed attempts) lives on the store's dqlite voters; a grader grades on its
// own SQLite file (the corpus and its drug_cache) and reads and writes the record through the
// store's HTTP API: POST /v1/exec (statements in one transaction, answered after a quorum has
// the commit) and POST /v1/query (one read, on the leader).
//
//   StoreClient store({"http://127.0.0.1:9211", "http://127.0.0.2:9211"});
//   StoreAnswer a = store.Query({"SELECT name FROM vendors WHERE vendor_key = :k", {{"k", key}}});
//   if (a.kind == StoreAnswer::kOk) for (const auto& row : a.body["rows"]) …
//
// Any node forwards to the leader, so a call goes to the node that answered last and moves on to
// the next when one does not answer or answers 503, until the deadline. "Does not answer" is
// within its share of the time left: what is left split over the nodes not yet tried in this
// round (with the 8 s deadline and three nodes, 2.7 s each), so that one node that accepts and
// never answers leaves time for the others. A 503 "unavailable" or a
// request sent and never answered leaves a write's outcome unknown: the caller repeats it with
// the same keys (a submission's id), and meeting its own row then means the first attempt was
// stored. One client per thread (it owns one HttpClient).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "http_client.h"

namespace scribe::http {

// One statement and its named parameters (without the ':'); values are strings, integers or null.
struct StoreStatement {
  std::string sql;
  nlohmann::json params = nlohmann::json::object();
};

struct StoreAnswer {
  enum Kind {
    kOk,           // body: the store's answer ({"results": [...]} or {"columns", "rows"})
    kConstraint,   // 409: a constraint failed (a write's row exists); nothing of the call was stored
    kRejected,     // 4xx: the statement or request is wrong (a bug here, not the store's state)
    kBusy,         // no node ran the call before the deadline, and none may have: nothing stored
    kUnavailable,  // no node completed the call before the deadline; a write's outcome is unknown
  } kind = kUnavailable;
  std::string message;  // the store's error message, or what the transport saw
  nlohmann::json body;
};

// Thrown where a read cannot reach the store: the API answers 503 "store_unavailable".
struct StoreUnavailable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class StoreClient {
 public:
  // `urls` are the nodes' API base URLs ("http://127.0.0.1:9211"); `deadline_ms` bounds one
  // call, every node tried included.
  explicit StoreClient(std::vector<std::string> urls, std::int64_t deadline_ms = 8000);

  StoreAnswer Exec(const std::vector<StoreStatement>& statements);
  // `deadline_ms` > 0 shortens this call's deadline (a health check's).
  StoreAnswer Query(const StoreStatement& statement, std::int64_t deadline_ms = 0);

  const std::vector<std::string>& urls() const { return urls_; }

 private:
  StoreAnswer Call(const char* path, const std::string& body, std::int64_t deadline_ms);
  std::vector<std::string> urls_;
  std::int64_t deadline_ms_;
  std::size_t next_ = 0;  // the node that answered last
  HttpClient http_;
};

// The store nodes of a comma-separated list ("http://a:9211,http://b:9211"); throws
// std::invalid_argument naming an entry that is not an http:// URL.
std::vector<std::string> ParseStoreUrls(const std::string& list);

}  // namespace scribe::http
