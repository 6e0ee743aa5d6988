// compact_json.cpp — a validating scan of strict, compact JSON (see compact_json.h).
#include "compact_json.h"

#include <array>

namespace scribe {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsHex(char c) { return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// Bytes a string holds as they are: not '"', not '\\', not a control character.
constexpr std::array<bool, 256> kPlain = [] {
  std::array<bool, 256> plain{};
  for (int c = 0x20; c < 256; ++c) plain[c] = c != '"' && c != '\\';
  return plain;
}();

// The string at text[i] (its opening quote); i moves past the closing quote.
bool String(std::string_view text, size_t& i) {
  if (i >= text.size() || text[i] != '"') return false;
  const size_t n = text.size();
  for (++i; i < n; ++i) {
    while (i < n && kPlain[static_cast<unsigned char>(text[i])]) ++i;
    if (i >= n) return false;
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '"') {
      ++i;
      return true;
    }
    if (c != '\\') return false;  // a control character
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

bool IsCompactJson(std::string_view text, std::vector<JsonMember>* top_level_members) {
  // An explicit stack of open containers ('{' or '['): no recursion on hostile nesting.
  std::vector<char> open;
  open.reserve(16);
  size_t i = 0;
  // A member name at text[i], then its colon.
  auto member_name = [&]() {
    size_t begin = i;
    if (!String(text, i) || i >= text.size() || text[i] != ':') return false;
    ++i;
    if (top_level_members && open.size() == 1) top_level_members->push_back({text.substr(begin + 1, i - begin - 3), text.substr(i, 0)});
    return true;
  };
  // The value of the top-level member being read ends at i.
  auto value_ends = [&]() {
    if (top_level_members && open.size() == 1 && !top_level_members->empty()) {
      std::string_view& v = top_level_members->back().value;
      v = text.substr(static_cast<size_t>(v.data() - text.data()), i - static_cast<size_t>(v.data() - text.data()));
    }
  };
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
        if (open.back() == '{' && !member_name()) return false;
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
    value_ends();
    // After a value: close containers, or go on to the next member or item.
    for (;;) {
      if (open.empty()) return i == text.size();
      if (i >= text.size()) return false;
      char close = open.back() == '{' ? '}' : ']';
      if (text[i] == close) {
        ++i;
        open.pop_back();
        value_ends();
        continue;
      }
      if (text[i] != ',') return false;
      ++i;
      if (open.back() == '{' && !member_name()) return false;
      break;
    }
  }
}

}  // namespace scribe
