// http.cpp — status lines, the JSON error shape and the header checks of http.h.
#include "http.h"

#include <sys/random.h>

#include <nlohmann/json.hpp>

#include <stdexcept>

namespace scribe::http {

using json = nlohmann::json;

Response JsonError(int status, std::string_view code, std::string_view message) {
  Response r;
  r.status = status;
  r.body = json{{"error", {{"code", code}, {"message", message}}}}.dump(-1, ' ', false, json::error_handler_t::replace);
  r.body += '\n';
  r.headers.emplace_back("Cache-Control", "no-cache");
  return r;
}

const char* StatusReason(int status) {
  switch (status) {
    case 200: return "OK";
    case 201: return "Created";
    case 304: return "Not Modified";
    case 400: return "Bad Request";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 411: return "Length Required";
    case 413: return "Content Too Large";
    case 415: return "Unsupported Media Type";
    case 422: return "Unprocessable Content";
    case 429: return "Too Many Requests";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    case 507: return "Insufficient Storage";
    default: return "Unknown";
  }
}

std::string ResponseHead(const Response& r) {
  std::string head = "Status: " + std::to_string(r.status) + " " + StatusReason(r.status) + "\r\n";
  head += "Content-Type: " + r.content_type + "\r\n";
  head += "Content-Length: " + std::to_string(r.body.size()) + "\r\n";
  for (const auto& [name, value] : r.headers) head += name + ": " + value + "\r\n";
  head += "\r\n";
  return head;
}

std::optional<std::size_t> ParseContentLength(const char* value) {
  if (!value || !*value) return std::nullopt;
  std::size_t n = 0, digits = 0;
  for (const char* p = value; *p; ++p, ++digits) {
    if (*p < '0' || *p > '9' || digits >= 18) return std::nullopt;
    n = n * 10 + static_cast<std::size_t>(*p - '0');
  }
  return n;
}

std::optional<std::int64_t> ParseMsec(const char* value) {
  if (!value) return std::nullopt;
  std::int64_t seconds = 0;
  const char* p = value;
  int digits = 0;
  for (; *p >= '0' && *p <= '9'; ++p, ++digits) {
    if (digits >= 12) return std::nullopt;
    seconds = seconds * 10 + (*p - '0');
  }
  if (digits == 0 || *p != '.') return std::nullopt;
  std::int64_t ms = 0;
  for (int i = 1; i <= 3; ++i) {
    if (p[i] < '0' || p[i] > '9') return std::nullopt;
    ms = ms * 10 + (p[i] - '0');
  }
  if (p[4] != '\0') return std::nullopt;
  return seconds * 1000 + ms;
}

namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

}  // namespace

bool IsJsonMediaType(std::string_view content_type) {
  std::string_view type = Trim(content_type.substr(0, content_type.find(';')));
  return EqualsIgnoreCase(type, "application/json");
}

bool IfNoneMatchMatches(std::string_view if_none_match, std::string_view etag) {
  std::string_view header = Trim(if_none_match);
  if (header == "*") return true;
  while (!header.empty()) {
    std::size_t comma = header.find(',');
    std::string_view tag = Trim(header.substr(0, comma));
    if (tag.starts_with("W/")) tag.remove_prefix(2);
    if (tag == etag) return true;
    if (comma == std::string_view::npos) break;
    header.remove_prefix(comma + 1);
  }
  return false;
}

std::string RandomHex(std::size_t n) {
  std::string bytes(n, '\0');
  std::size_t got = 0;
  while (got < n) {
    ssize_t r = getrandom(bytes.data() + got, n - got, 0);
    if (r < 0) throw std::runtime_error("getrandom failed");
    got += static_cast<std::size_t>(r);
  }
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * n);
  for (unsigned char b : bytes) {
    out += kHex[b >> 4];
    out += kHex[b & 15];
  }
  return out;
}

}  // namespace scribe::http
