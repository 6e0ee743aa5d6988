// submit.cpp — libcurl POSTs with bounded retries (submit.h).
#include "submit.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <thread>

namespace scribe::run {
namespace {

using nlohmann::json;

struct SlistDeleter {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};
using Slist = std::unique_ptr<curl_slist, SlistDeleter>;

struct Reply {
  long status = 0;
  std::string body, retry_after, error;
};

size_t Collect(char* data, size_t size, size_t n, void* user) {
  auto* s = static_cast<std::string*>(user);
  if (s->size() + size * n > (8u << 20)) return 0;  // an answer over 8 MiB: stop
  s->append(data, size * n);
  return size * n;
}

size_t Header(char* data, size_t size, size_t n, void* user) {
  std::string line(data, size * n);
  std::string lower = line;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  if (lower.rfind("retry-after:", 0) == 0) {
    std::string v = line.substr(12);
    v.erase(0, v.find_first_not_of(" \t"));
    v.erase(v.find_last_not_of(" \t\r\n") + 1);
    static_cast<Reply*>(user)->retry_after = v;
  }
  return size * n;
}

// Seconds from a Retry-After of delta-seconds (an HTTP date is not used by this server), or -1.
long RetryAfterSeconds(const std::string& v) {
  if (v.empty() || v.size() > 6 || !std::all_of(v.begin(), v.end(), [](unsigned char c) { return std::isdigit(c); }))
    return -1;
  return std::stol(v);
}

}  // namespace

struct Submitter::Handle {
  CURL* curl = curl_easy_init();
  ~Handle() { curl_easy_cleanup(curl); }
};

Submitter::Submitter(std::string base_url, std::string vendor, std::string key, std::function<void(long)> sleep_ms)
    : vendor_(std::move(vendor)),
      key_(std::move(key)),
      sleep_ms_(std::move(sleep_ms)),
      handle_(std::make_unique<Handle>()) {
  while (!base_url.empty() && base_url.back() == '/') base_url.pop_back();
  url_ = base_url + "/api/submit";
  if (!sleep_ms_) sleep_ms_ = [](long ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); };
  if (!handle_->curl) throw std::runtime_error("curl_easy_init failed");
}

Submitter::~Submitter() = default;

json Submitter::Post(const std::string& trial_id, std::string_view output, const std::string& corpus_hash) {
  const std::string body =
      json{{"script_id", trial_id}, {"vendor", vendor_}, {"scribe_output", output}, {"corpus_hash", corpus_hash}}.dump(
          -1, ' ', false, json::error_handler_t::replace);
  Slist headers(curl_slist_append(nullptr, "Content-Type: application/json"));
  headers.reset(curl_slist_append(headers.release(), "Expect:"));
  if (!key_.empty()) headers.reset(curl_slist_append(headers.release(), ("Authorization: Bearer " + key_).c_str()));
  CURL* c = handle_->curl;
  long backoff_ms = 1000;
  for (int attempt = 1;; ++attempt) {
    Reply reply;
    curl_easy_reset(c);
    curl_easy_setopt(c, CURLOPT_URL, url_.c_str());
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_POST, 1L);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.data());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
    curl_easy_setopt(c, CURLOPT_USERAGENT, "scribe-run");
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, 5000L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 60000L);  // the server's 30 s deadline, and nginx's margin
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, Collect);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &reply.body);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, Header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &reply);
    CURLcode rc = curl_easy_perform(c);
    if (rc == CURLE_OK)
      curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &reply.status);
    else
      reply.error = curl_easy_strerror(rc);

    long wait_ms = -1;  // -1: do not retry
    if (rc != CURLE_OK) {
      wait_ms = backoff_ms;
    } else if (reply.status == 429 || reply.status == 503) {
      long after = RetryAfterSeconds(reply.retry_after);
      wait_ms = after >= 0 ? std::min<long>(after, kMaxRetryAfterS) * 1000 : backoff_ms;
    }
    if (wait_ms < 0 || attempt >= kMaxAttempts) {
      json answer = {{"status", reply.status}, {"attempts", attempt}};
      json parsed = json::parse(reply.body, nullptr, false);
      if (rc != CURLE_OK) {
        answer["error"] = {{"code", "transport"}, {"message", url_ + ": " + reply.error}};
      } else if (reply.status == 201 || reply.status == 200) {
        if (parsed.is_object()) {
          answer["id"] = parsed.value("id", json(nullptr));
          answer["score_total"] = parsed.value("score_total", json(nullptr));
          answer["unsafe"] = parsed.value("unsafe", json(nullptr));
        }
      } else if (parsed.is_object() && parsed["error"].is_object()) {
        answer["error"] = parsed["error"];
      } else {
        answer["error"] = {
            {"code", "http_" + std::to_string(reply.status)},
            {"message", "the server answered " + std::to_string(reply.status) + " without a JSON error"}};
      }
      return answer;
    }
    sleep_ms_(wait_ms);
    backoff_ms = std::min<long>(backoff_ms * 2, 8000);
  }
}

}  // namespace scribe::run
