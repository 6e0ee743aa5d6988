// http_client.h — a small blocking HTTP(S) client over libcurl: GETs for live drug validation,
// JSON POSTs for a grader's calls to the replicated store (fcgi/store_client.h).
//
//   HttpClient client({.connect_timeout_ms = 2000, .total_timeout_ms = 5000});
//   HttpResult r = client.Get("https://rxnav.nlm.nih.gov/REST/version.json");
//   if (!r.transport_ok) use(r.error);          // "connection refused", "timeout after 5 s", ...
//   else if (r.http_status == 200) parse(r.body);
//
// The network is data: every outcome is a value. Transport problems (refused, timeout, DNS,
// TLS, a body over the cap) set transport_ok = false with a short English `error`; any HTTP
// answer, 500 included, is transport_ok = true with its status. Nothing here throws for
// network problems. One client owns one CURL easy handle, so consecutive requests to the same
// host reuse the connection (and TLS session). A client is not thread-safe; use one per thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace scribe {

struct HttpOptions {
  int64_t connect_timeout_ms = 2000;   // TCP + TLS handshake
  int64_t total_timeout_ms = 5000;     // the whole request, connect included
  size_t max_body_bytes = 1 << 20;     // larger answers fail with kTooLarge
  std::string user_agent = "scribe-trials (live drug validation)";
  std::string ca_file;                 // extra CA bundle (PEM); empty = the system store
};

enum class HttpFailure : uint8_t {
  kNone,            // an HTTP answer arrived (any status)
  kConnectTimeout,  // no connection within connect_timeout_ms
  kTimeout,         // connected, but no complete answer within total_timeout_ms
  kRefused,         // connection refused or host unreachable
  kResolve,         // host name did not resolve
  kTooLarge,        // answer body over max_body_bytes
  kTls,             // TLS handshake or certificate failure
  kOther,           // anything else libcurl reports
};

struct HttpResult {
  bool transport_ok = false;  // true when an HTTP status line and full body arrived
  long http_status = 0;       // 0 when nothing answered
  std::string body;           // at most max_body_bytes
  HttpFailure failure = HttpFailure::kNone;
  std::string error;          // "connection refused", "timeout after 5 s", "answer over 1 MiB", ...
  double elapsed_ms = 0;      // wall time of the request
  bool timed_out() const { return failure == HttpFailure::kTimeout || failure == HttpFailure::kConnectTimeout; }
};

class HttpClient {
 public:
  explicit HttpClient(HttpOptions options = {});
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // GETs a URL (http or https only). Never throws for network problems. A `timeout_ms`
  // between 1 and options().total_timeout_ms shortens this request's whole-request (and
  // connect) timeout; 0 keeps the options'.
  HttpResult Get(const std::string& url, int64_t timeout_ms = 0);
  // POSTs a JSON body (Content-Type: application/json), the same way; never follows a redirect.
  HttpResult Post(const std::string& url, std::string_view json_body, int64_t timeout_ms = 0);

  const HttpOptions& options() const { return options_; }

 private:
  struct Handle;
  HttpResult Perform(const std::string& url, int64_t timeout_ms, const std::string_view* post_body);
  HttpOptions options_;
  std::unique_ptr<Handle> handle_;
};

// Percent-encodes a query-string value (RFC 3986 unreserved characters kept).
std::string UrlEncode(std::string_view s);

// "2 s", "0.3 s": a duration in milliseconds as the reasons print it.
std::string FormatSeconds(int64_t ms);

// "1 MiB", "64 KiB", "1000 bytes".
std::string FormatBytes(size_t n);

}  // namespace scribe
