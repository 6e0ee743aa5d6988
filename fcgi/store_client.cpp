// store_client.cpp — StoreClient (see store_client.h).
#include "store_client.h"

#include <chrono>
#include <stdexcept>
#include <thread>

namespace scribe::http {

using nlohmann::json;

namespace {

std::int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The store's error body: {"error": "...", "code": "..."}; empty strings when it is not one.
std::pair<std::string, std::string> ErrorOf(const std::string& body) {
  json j = json::parse(body, nullptr, false);
  if (!j.is_object()) return {"", ""};
  return {j.value("error", ""), j.value("code", "")};
}

}  // namespace

StoreClient::StoreClient(std::vector<std::string> urls, std::int64_t deadline_ms)
    : urls_(std::move(urls)),
      deadline_ms_(deadline_ms),
      http_(HttpOptions{.connect_timeout_ms = 1000,
                        .total_timeout_ms = deadline_ms,
                        .max_body_bytes = 64u << 20,
                        .user_agent = "scribe-fcgi (grader)",
                        .ca_file = ""}) {
  if (urls_.empty()) throw std::invalid_argument("no store node given");
}

StoreAnswer StoreClient::Exec(const std::vector<StoreStatement>& statements) {
  json list = json::array();
  for (const StoreStatement& s : statements) list.push_back({{"sql", s.sql}, {"params", s.params}});
  return Call("/v1/exec", json{{"statements", std::move(list)}}.dump(-1, ' ', false, json::error_handler_t::replace),
              deadline_ms_);
}

StoreAnswer StoreClient::Query(const StoreStatement& statement, std::int64_t deadline_ms) {
  return Call("/v1/query",
              json{{"sql", statement.sql}, {"params", statement.params}}.dump(-1, ' ', false, json::error_handler_t::replace),
              deadline_ms > 0 && deadline_ms < deadline_ms_ ? deadline_ms : deadline_ms_);
}

StoreAnswer StoreClient::Call(const char* path, const std::string& body, std::int64_t deadline_ms) {
  const std::int64_t deadline = NowMs() + deadline_ms;
  StoreAnswer answer;
  // Whether an attempt may have reached the leader without its outcome coming back (a 503
  // "unavailable", or no answer to a request that was sent): then the call's outcome stays
  // unknown whatever the later attempts say. A 503 "busy" (the store ran nothing) and a refused
  // connection (nothing was sent) leave it known.
  bool unknown = false;
  std::size_t tried = 0;
  for (;;) {
    const std::int64_t left = deadline - NowMs();
    if (left <= 0) break;
    // A node that takes the request and never answers (a black-holed link, a hung process) may
    // have only its share of what is left, so that the others are tried before the deadline:
    // what is left split over the nodes this round has not tried, this one included (8 s over
    // three nodes: 2.7 s each; the last one of a round gets all that is left).
    const std::int64_t attempt_ms = left / static_cast<std::int64_t>(urls_.size() - tried % urls_.size());
    const std::string& base = urls_[next_];
    HttpResult r = http_.Post(base + path, body, attempt_ms > 0 ? attempt_ms : left);
    if (r.transport_ok && r.http_status == 200) {
      answer.body = json::parse(r.body, nullptr, false);
      if (answer.body.is_discarded()) {
        answer.kind = StoreAnswer::kRejected;
        answer.message = base + " answered 200 with a body that is not JSON";
        return answer;
      }
      answer.kind = StoreAnswer::kOk;
      return answer;
    }
    if (r.transport_ok) {
      auto [error, code] = ErrorOf(r.body);
      answer.message = error.empty() ? base + " answered " + std::to_string(r.http_status) : error;
      if (r.http_status == 409) {
        answer.kind = StoreAnswer::kConstraint;
        return answer;
      }
      if (r.http_status != 503) {
        answer.kind = StoreAnswer::kRejected;
        answer.message = base + " answered " + std::to_string(r.http_status) + ": " + answer.message;
        return answer;
      }
      unknown = unknown || code != "busy";
    } else {
      answer.message = base + ": " + r.error;
      unknown = unknown || r.failure != HttpFailure::kRefused;
    }
    // No answer, or 503: the next node; after a whole round, a short pause.
    next_ = (next_ + 1) % urls_.size();
    if (++tried % urls_.size() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  answer.kind = unknown ? StoreAnswer::kUnavailable : StoreAnswer::kBusy;
  if (answer.message.empty()) answer.message = "no store node answered within " + FormatSeconds(deadline_ms);
  return answer;
}

std::vector<std::string> ParseStoreUrls(const std::string& list) {
  std::vector<std::string> urls;
  std::size_t start = 0;
  while (start <= list.size()) {
    std::size_t comma = list.find(',', start);
    std::string url = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    while (!url.empty() && url.back() == '/') url.pop_back();
    if (url.rfind("http://", 0) != 0 || url.size() <= 7)
      throw std::invalid_argument("store node '" + url + "' is not an http:// URL (http://HOST:PORT)");
    urls.push_back(url);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return urls;
}

}  // namespace scribe::http
