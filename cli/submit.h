// submit.h — posting a case's output to a running scribe-trials server (POST /api/submit).
//
//   Submitter submit("http://127.0.0.1:4779/scribe-trials", "Acme Scribe 2.1", key);
//   json answer = submit.Post("03-depression-suicidal-ideation", note, corpus_hash);
//   answer["status"] == 201, answer["id"], answer["score_total"]
//
// The body is {script_id, vendor, scribe_output, corpus_hash}: a server whose corpus is not the
// one graded locally answers 409 corpus_mismatch and stores nothing. With a key, the header
// Authorization: Bearer KEY. A 429 (rate limit) or 503 with Retry-After is retried after the
// time it asks for (at most kMaxRetryAfterS), other 503s and transport failures after 1, 2, 4,
// 8 s; at most kMaxAttempts attempts in all. The network is data: the answer is a value.
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace scribe::run {

constexpr int kMaxAttempts = 6;
constexpr int kMaxRetryAfterS = 30;

class Submitter {
 public:
  // `sleep_ms` waits between attempts (tests pass a recorder); by default it sleeps.
  Submitter(std::string base_url, std::string vendor, std::string key, std::function<void(long)> sleep_ms = nullptr);
  ~Submitter();
  Submitter(const Submitter&) = delete;
  Submitter& operator=(const Submitter&) = delete;

  // {"status": HTTP status or 0, "attempts": n, "id" and "score_total" and "unsafe" on 201,
  //  "error": {"code", "message"} otherwise (the server's error body, or the transport failure
  //  as code "transport")}.
  nlohmann::json Post(const std::string& trial_id, std::string_view output, const std::string& corpus_hash);

  const std::string& url() const { return url_; }

 private:
  struct Handle;
  std::string url_, vendor_, key_;
  std::function<void(long)> sleep_ms_;
  std::unique_ptr<Handle> handle_;
};

}  // namespace scribe::run
