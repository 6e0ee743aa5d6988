// compact_json.cpp — a validating scan of strict, compact JSON (see compact_json.h).
#include "compact_json.h"

#include <vector>

namespace scribe {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsHex(char c) { return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// The string at text[i] (its opening quote); i moves past the closing quote.
bool String(std::string_view text, size_t& i) {
  if (i >= text.size() || text[i] != '"') return false;
  for (++i; i < text.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '"') {
      ++i;
      return true;
    }
    if (c < 0x20) return false;
    if (c != '\\') continue;
    if (++i >= text.size()) return false;
    switch (text[i]) {
      case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't': break;
      case 'u':
        if (i + 4 >= text.size() || !IsHex(text[i + 1]) || !IsHex(text[i + 2]) || !IsHex(text[i + 3]) ||
            !IsHex(text[i + 4]))
          return false;
        i += 4;
        break;
      default: return false;
    }
  }
  return false;
}

// The number at text[i]: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
bool Number(std::string_view text, size_t& i) {
  if (i < text.size() && text[i] == '-') ++i;
  if (i >= text.size() || !IsDigit(text[i])) return false;
  if (text[i] == '0') ++i;
  else
    while (i < text.size() && IsDigit(text[i])) ++i;
  if (i < text.size() && text[i] == '.') {
    if (++i >= text.size() || !IsDigit(text[i])) return false;
    while (i < text.size() && IsDigit(text[i])) ++i;
  }
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    if (i >= text.size() || !IsDigit(text[i])) return false;
    while (i < text.size() && IsDigit(text[i])) ++i;
  }
  return true;
}

bool Literal(std::string_view text, size_t& i, std::string_view word) {
  if (text.substr(i, word.size()) != word) return false;
  i += word.size();
  return true;
}

}  // namespace

bool IsCompactJson(std::string_view text) {
  // An explicit stack of open containers ('{' or '['): no recursion on hostile nesting.
  std::vector<char> open;
  size_t i = 0;
  for (;;) {
    // A value at text[i].
    if (i >= text.size()) return false;
    bool scalar = true;
    switch (text[i]) {
      case '{':
      case '[':
        if (open.size() >= kMaxCompactDepth) return false;
        open.push_back(text[i]);
        ++i;
        if (i < text.size() && text[i] == (open.back() == '{' ? '}' : ']')) {  // empty container
          ++i;
          open.pop_back();
          break;
        }
        if (open.back() == '{') {
          if (!String(text, i) || i >= text.size() || text[i] != ':') return false;
          ++i;
        }
        scalar = false;
        break;
      case '"':
        if (!String(text, i)) return false;
        break;
      case 't':
        if (!Literal(text, i, "true")) return false;
        break;
      case 'f':
        if (!Literal(text, i, "false")) return false;
        break;
      case 'n':
        if (!Literal(text, i, "null")) return false;
        break;
      default:
        if (!Number(text, i)) return false;
    }
    if (!scalar) continue;  // the container's first value follows
    // After a value: close containers, or go on to the next member or item.
    for (;;) {
      if (open.empty()) return i == text.size();
      if (i >= text.size()) return false;
      char close = open.back() == '{' ? '}' : ']';
      if (text[i] == close) {
        ++i;
        open.pop_back();
        continue;
      }
      if (text[i] != ',') return false;
      ++i;
      if (open.back() == '{') {
        if (!String(text, i) || i >= text.size() || text[i] != ':') return false;
        ++i;
      }
      break;
    }
  }
}

}  // namespace scribe
