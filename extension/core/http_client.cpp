// http_client.cpp — libcurl behind HttpClient (see http_client.h).
#include "http_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <mutex>

#include "text.h"

namespace scribe {
namespace {

struct CurlEasyDeleter {
  void operator()(CURL* c) const { curl_easy_cleanup(c); }
};
struct CurlSlistDeleter {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};

void GlobalInit() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

// Collects the body, refusing more than `cap` bytes (decoded bytes: a compressed answer
// cannot inflate past the cap).
struct Sink {
  std::string* body;
  size_t cap;
  bool overflow = false;
};

size_t Write(char* data, size_t size, size_t nmemb, void* user) {
  auto* sink = static_cast<Sink*>(user);
  size_t n = size * nmemb;
  if (sink->body->size() + n > sink->cap) {
    sink->overflow = true;
    return 0;  // makes libcurl stop with CURLE_WRITE_ERROR
  }
  sink->body->append(data, n);
  return n;
}

}  // namespace

struct HttpClient::Handle {
  std::unique_ptr<CURL, CurlEasyDeleter> curl;
  std::unique_ptr<curl_slist, CurlSlistDeleter> headers;
  std::unique_ptr<curl_slist, CurlSlistDeleter> post_headers;  // and the body's type; no "Expect: 100-continue"
  char error[CURL_ERROR_SIZE] = {0};
};

HttpClient::HttpClient(HttpOptions options) : options_(std::move(options)), handle_(std::make_unique<Handle>()) {
  GlobalInit();
  handle_->curl.reset(curl_easy_init());
  CURL* c = handle_->curl.get();
  if (!c) return;  // Get() reports it
  curl_slist* h = curl_slist_append(nullptr, "Accept: application/json");
  handle_->headers.reset(h);
  curl_slist* p = curl_slist_append(nullptr, "Accept: application/json");
  if (p) p = curl_slist_append(p, "Content-Type: application/json");
  if (p) p = curl_slist_append(p, "Expect:");
  handle_->post_headers.reset(p);
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, handle_->headers.get());
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);  // timeouts without SIGALRM: safe in threads
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(options_.connect_timeout_ms));
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(options_.total_timeout_ms));
  curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(options_.max_body_bytes));
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(c, CURLOPT_MAXREDIRS, 3L);
  curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");  // gzip/deflate/br as libcurl supports
  curl_easy_setopt(c, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(c, CURLOPT_USERAGENT, options_.user_agent.c_str());
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, handle_->error);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, Write);
  if (!options_.ca_file.empty()) curl_easy_setopt(c, CURLOPT_CAINFO, options_.ca_file.c_str());
}

HttpClient::~HttpClient() = default;

HttpResult HttpClient::Get(const std::string& url, int64_t timeout_ms) { return Perform(url, timeout_ms, nullptr); }

HttpResult HttpClient::Post(const std::string& url, std::string_view json_body, int64_t timeout_ms) {
  return Perform(url, timeout_ms, &json_body);
}

HttpResult HttpClient::Perform(const std::string& url, int64_t timeout_ms, const std::string_view* post_body) {
  HttpResult r;
  CURL* c = handle_->curl.get();
  if (!c) {
    r.failure = HttpFailure::kOther;
    r.error = "libcurl could not create a handle";
    return r;
  }
  Sink sink{&r.body, options_.max_body_bytes};
  handle_->error[0] = '\0';
  const int64_t total_ms =
      timeout_ms > 0 ? std::min(timeout_ms, options_.total_timeout_ms) : options_.total_timeout_ms;
  const int64_t connect_ms = std::min(options_.connect_timeout_ms, total_ms);
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &sink);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(connect_ms));
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(total_ms));
  if (post_body) {
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, handle_->post_headers.get());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(post_body->size()));
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, post_body->data());
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);  // a write is never re-sent elsewhere
  }
  auto start = std::chrono::steady_clock::now();
  CURLcode rc = curl_easy_perform(c);
  r.elapsed_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  curl_easy_setopt(c, CURLOPT_WRITEDATA, nullptr);
  if (post_body) {  // back to GET for the next request
    curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, handle_->headers.get());
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
  }
  if (rc == CURLE_OK) {
    r.transport_ok = true;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.http_status);
    return r;
  }
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.http_status);
  r.body.clear();
  switch (rc) {
    case CURLE_OPERATION_TIMEDOUT: {
      // No connect time and no pre-transfer time: the connection was never made. A reused
      // keep-alive connection has no connect time either, but it reached the transfer.
      curl_off_t connect_us = 0, pretransfer_us = 0;
      curl_easy_getinfo(c, CURLINFO_CONNECT_TIME_T, &connect_us);
      curl_easy_getinfo(c, CURLINFO_PRETRANSFER_TIME_T, &pretransfer_us);
      if (connect_us == 0 && pretransfer_us == 0) {
        r.failure = HttpFailure::kConnectTimeout;
        r.error = "connect timeout after " + FormatSeconds(connect_ms);
      } else {
        r.failure = HttpFailure::kTimeout;
        r.error = "timeout after " + FormatSeconds(total_ms);
      }
      break;
    }
    case CURLE_COULDNT_CONNECT: {
      long os_errno = 0;
      curl_easy_getinfo(c, CURLINFO_OS_ERRNO, &os_errno);
      r.failure = HttpFailure::kRefused;
      r.error = os_errno == ECONNREFUSED || os_errno == 0 ? "connection refused"
                                                         : std::string("cannot connect: ") + std::strerror(static_cast<int>(os_errno));
      break;
    }
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
      r.failure = HttpFailure::kResolve;
      r.error = "cannot resolve host";
      break;
    case CURLE_FILESIZE_EXCEEDED:
      r.failure = HttpFailure::kTooLarge;
      r.error = "answer over " + FormatBytes(options_.max_body_bytes);
      break;
    case CURLE_WRITE_ERROR:
      r.failure = sink.overflow ? HttpFailure::kTooLarge : HttpFailure::kOther;
      r.error = sink.overflow ? "answer over " + FormatBytes(options_.max_body_bytes) : "write error";
      break;
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
      r.failure = HttpFailure::kTls;
      r.error = std::string("tls: ") + (handle_->error[0] ? handle_->error : curl_easy_strerror(rc));
      break;
    default:
      r.failure = HttpFailure::kOther;
      r.error = handle_->error[0] ? handle_->error : curl_easy_strerror(rc);
      break;
  }
  return r;
}

std::string UrlEncode(std::string_view s) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size() * 3);
  for (unsigned char ch : s) {
    if ((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-' || ch == '_' ||
        ch == '.' || ch == '~') {
      out += static_cast<char>(ch);
    } else {
      out += '%';
      out += kHex[ch >> 4];
      out += kHex[ch & 15];
    }
  }
  return out;
}

std::string FormatSeconds(int64_t ms) { return FormatNumber(static_cast<double>(ms) / 1000.0) + " s"; }

std::string FormatBytes(size_t n) {
  if (n >= (1u << 20) && n % (1u << 20) == 0) return std::to_string(n >> 20) + " MiB";
  if (n >= 1024 && n % 1024 == 0) return std::to_string(n >> 10) + " KiB";
  return std::to_string(n) + " bytes";
}

}  // namespace scribe
