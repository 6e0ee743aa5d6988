// http.h — the request and response the API works with, independent of FastCGI.
//
// The worker (worker.cpp) fills a Request from the FastCGI parameters nginx sends (stock
// fastcgi_params: REQUEST_METHOD, DOCUMENT_URI, CONTENT_LENGTH, CONTENT_TYPE, HTTP_*), the API
// (api.cpp) turns it into a Response, and the worker writes that back with Status: and
// Content-Type: always present. Every error body has one shape:
//
//   {"error":{"code":"invalid_field","message":"vendor must not be empty"}}
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace scribe::http {

// Request bodies above this are refused (413) without being read; nginx enforces the same.
constexpr std::size_t kMaxBodyBytes = 256 * 1024;

struct Request {
  std::string method;        // REQUEST_METHOD
  std::string path;          // DOCUMENT_URI (decoded, normalised by nginx)
  std::string content_type;  // CONTENT_TYPE, may be empty
  std::string if_none_match; // HTTP_IF_NONE_MATCH, may be empty
  std::string authorization; // HTTP_AUTHORIZATION, may be empty; never logged
  std::string query;         // QUERY_STRING (still percent-encoded), may be empty
  std::string remote_addr;   // REMOTE_ADDR (nginx's client address), may be empty
  // CONTENT_LENGTH when present and a valid decimal number; nullopt otherwise.
  std::optional<std::size_t> content_length;
  // Reads exactly *content_length bytes of the body into `out`; false when the stream ends
  // early. Only called after the length has been checked against kMaxBodyBytes.
  std::function<bool(std::string& out)> read_body;
  // SCRIBE_REQUEST_START: when nginx passed the request on (its $msec), in Unix milliseconds;
  // nullopt when absent or malformed (a FastCGI client other than nginx).
  std::optional<std::int64_t> start_ms;
  // True when the peer (nginx) has closed the connection: nobody will read the answer. May be
  // empty (never gone).
  std::function<bool()> client_gone;
};

struct Response {
  int status = 200;
  std::string content_type = "application/json";
  std::vector<std::pair<std::string, std::string>> headers;  // besides Status and Content-Type
  std::string body;
};

// {"error":{"code":…,"message":…}} with the given status and Cache-Control: no-cache; the
// message is JSON-escaped (and invalid UTF-8 replaced), so it may quote what the client sent.
Response JsonError(int status, std::string_view code, std::string_view message);

// The reason phrase for a status code ("Unprocessable Content" for 422); "Unknown" otherwise.
const char* StatusReason(int status);

// The CGI response head: "Status: 201 Created\r\nContent-Type: …\r\n…\r\n\r\n", with
// Content-Length of the body.
std::string ResponseHead(const Response& r);

// CONTENT_LENGTH as a number: digits only, no sign or spaces, at most 18 digits.
std::optional<std::size_t> ParseContentLength(const char* value);

// nginx's $msec ("1735689600.123": seconds, a dot, exactly three digits) as Unix milliseconds;
// nullopt for anything else.
std::optional<std::int64_t> ParseMsec(const char* value);

// True when the media type is application/json (case-insensitive, parameters such as
// "; charset=utf-8" allowed).
bool IsJsonMediaType(std::string_view content_type);

// True when an If-None-Match header matches the (quoted, strong) entity tag: "*" or any listed
// tag, compared weakly as RFC 9110 requires for If-None-Match.
bool IfNoneMatchMatches(std::string_view if_none_match, std::string_view etag);

// `n` random bytes from the kernel's CSPRNG (getrandom), as 2n lower-case hex digits: vendor
// keys, submission ids. Throws std::runtime_error when the kernel refuses.
std::string RandomHex(std::size_t n);

}  // namespace scribe::http
