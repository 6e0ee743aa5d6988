// json_writer.cpp — JSON text as nlohmann's compact dump writes it (see json_writer.h).
#include "json_writer.h"

#include <algorithm>
#include <cassert>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>

namespace scribe {
namespace {

using nlohmann::json;

// Bytes dump() copies as they are when they stand alone: printable ASCII (DEL included) but the
// quote and the backslash.
constexpr bool IsPlainByte(unsigned char c) { return c >= 0x20 && c < 0x80 && c != '"' && c != '\\'; }

struct PlainBytes {
  bool table[256] = {};
  constexpr PlainBytes() {
    for (int c = 0; c < 256; ++c) table[c] = IsPlainByte(static_cast<unsigned char>(c));
  }
};
constexpr PlainBytes kPlain;

// Whether all 8 bytes of `x` are plain, at once: no byte with its high bit set, none below 0x20,
// none equal to '"' or '\\'. HasZero is the classic "does a word hold a zero byte" test; a byte
// below 0x20 is one that borrows when 0x20 is taken from it.
constexpr uint64_t kOnes = 0x0101010101010101ull;
constexpr uint64_t kHighs = 0x8080808080808080ull;
constexpr uint64_t HasZero(uint64_t x) { return (x - kOnes) & ~x & kHighs; }
constexpr bool PlainWord(uint64_t x) {
  return ((x & kHighs) | ((x - 0x20 * kOnes) & ~x & kHighs) | HasZero(x ^ ('"' * kOnes)) |
          HasZero(x ^ ('\\' * kOnes))) == 0;
}

// PlainWord agrees with IsPlainByte for every byte value at every place of a word, among
// neighbours that are plain themselves and sit at the edges of the plain range (a borrow or a
// carry from one byte must not change the answer for another).
constexpr bool PlainWordAgrees() {
  constexpr unsigned char kNeighbours[] = {0x20, 0x21, 0x23, 0x5B, 0x5D, 0x61, 0x7E, 0x7F};
  for (unsigned char fill : kNeighbours)
    for (int place = 0; place < 8; ++place)
      for (int c = 0; c < 256; ++c) {
        uint64_t x = fill * kOnes;
        x &= ~(uint64_t{0xFF} << (8 * place));
        x |= static_cast<uint64_t>(c) << (8 * place);
        if (PlainWord(x) != IsPlainByte(static_cast<unsigned char>(c))) return false;
      }
  return true;
}
static_assert(PlainWordAgrees());

uint64_t Load64(const char* p) {
  uint64_t x;
  std::memcpy(&x, p, 8);
  return x;
}
uint32_t Load32(const char* p) {
  uint32_t x;
  std::memcpy(&x, p, 4);
  return x;
}

// How many bytes at the start of `s` are plain: 8 at a time, then one by one from the first word
// that holds a byte that is not.
size_t PlainPrefix(std::string_view s) {
  size_t i = 0;
  while (i + 8 <= s.size() && PlainWord(Load64(s.data() + i))) i += 8;
  while (i < s.size() && kPlain.table[static_cast<unsigned char>(s[i])]) ++i;
  return i;
}

// Whether dump() writes `s` as its own bytes between quotes: PlainPrefix(s) == s.size(), without
// a loop over the bytes of a short text (most keys are 3–12 bytes). Every byte is read at least
// once, some twice: words that overlap at the end, or a word padded with spaces.
bool IsPlain(std::string_view s) {
  const char* p = s.data();
  const size_t n = s.size();
  if (n >= 8) {
    for (size_t i = 0; i + 8 < n; i += 8)
      if (!PlainWord(Load64(p + i))) return false;
    return PlainWord(Load64(p + n - 8));
  }
  uint64_t x;
  if (n >= 4) {
    x = Load32(p) | uint64_t{Load32(p + n - 4)} << 32;
  } else if (n > 0) {
    auto byte = [&](size_t i) { return uint64_t{static_cast<unsigned char>(p[i])}; };
    x = byte(0) | byte(n / 2) << 8 | byte(n - 1) << 16 | 0x2020202020ull << 24;
  } else {
    return true;
  }
  return PlainWord(x);
}

// What dump() writes for an ASCII control character, a quote or a backslash.
void AppendEscape(std::string& out, unsigned char c) {
  switch (c) {
    case '"': out += "\\\""; return;
    case '\\': out += "\\\\"; return;
    case '\b': out += "\\b"; return;
    case '\t': out += "\\t"; return;
    case '\n': out += "\\n"; return;
    case '\f': out += "\\f"; return;
    case '\r': out += "\\r"; return;
    default: {
      static constexpr char kHex[] = "0123456789abcdef";
      const char escape[6] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xF]};
      out.append(escape, sizeof escape);
      return;
    }
  }
}

// The length of the well-formed UTF-8 sequence starting at s[i] (Unicode's Table 3-7: no
// overlong forms, no surrogates, nothing beyond U+10FFFF), or 0 when the bytes there are not one.
// The sequences nlohmann's decoder accepts.
size_t Utf8SequenceAt(std::string_view s, size_t i) {
  auto in = [&](size_t k, unsigned char low, unsigned char high) {
    if (i + k >= s.size()) return false;
    auto b = static_cast<unsigned char>(s[i + k]);
    return b >= low && b <= high;
  };
  const auto lead = static_cast<unsigned char>(s[i]);
  if (lead >= 0xC2 && lead <= 0xDF) return in(1, 0x80, 0xBF) ? 2 : 0;
  if (lead >= 0xE0 && lead <= 0xEF) {
    bool second = lead == 0xE0 ? in(1, 0xA0, 0xBF) : lead == 0xED ? in(1, 0x80, 0x9F) : in(1, 0x80, 0xBF);
    return second && in(2, 0x80, 0xBF) ? 3 : 0;
  }
  if (lead >= 0xF0 && lead <= 0xF4) {
    bool second = lead == 0xF0 ? in(1, 0x90, 0xBF) : lead == 0xF4 ? in(1, 0x80, 0x8F) : in(1, 0x80, 0xBF);
    return second && in(2, 0x80, 0xBF) && in(3, 0x80, 0xBF) ? 4 : 0;
  }
  return 0;
}

// Texts up to this long are copied into `out` with their punctuation in one append.
constexpr size_t kShortText = 64;

// "plain" (a text IsPlain holds for), appended.
void AppendQuoted(std::string& out, std::string_view plain) {
  if (plain.size() > kShortText) {
    out += '"';
    out += plain;
    out += '"';
    return;
  }
  char buffer[kShortText + 2];
  buffer[0] = '"';
  std::memcpy(buffer + 1, plain.data(), plain.size());
  buffer[plain.size() + 1] = '"';
  out.append(buffer, plain.size() + 2);
}

// What dump() writes for a string: plain bytes and well-formed UTF-8 as they are, ASCII controls,
// the quote and the backslash escaped as dump() escapes them. A string with invalid UTF-8 is left
// to dump() itself, so its replacement characters are dump()'s own.
void AppendString(std::string& out, std::string_view s) {
  size_t i = PlainPrefix(s);
  if (i == s.size()) {
    AppendQuoted(out, s);
    return;
  }
  const size_t start = out.size();
  out += '"';
  size_t copied = 0;  // s[0, copied) is in `out`
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (kPlain.table[c]) {
      ++i;
    } else if (c >= 0x80) {
      size_t n = Utf8SequenceAt(s, i);
      if (n == 0) {
        out.resize(start);
        out += json(std::string(s)).dump(-1, ' ', false, json::error_handler_t::replace);
        return;
      }
      i += n;
    } else {
      out.append(s.data() + copied, i - copied);
      AppendEscape(out, c);
      copied = ++i;
    }
  }
  out.append(s.data() + copied, s.size() - copied);
  out += '"';
}

template <typename Number>
void AppendInteger(std::string& out, Number n) {
  char buffer[24];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, n);
  out.append(buffer, end);
}

}  // namespace

bool AppendFourPlaces(std::string& out, double x) {
  // x is n / 10^4 for an integer n below kFourPlacesLimit in magnitude: the decimal n / 10^4 is
  // the double's shortest round-trip form, which dump() writes as it stands ("0.6667", "12.5",
  // "3.0"). Every published score and weight is such a number (Round4). -0.0 is left to dump().
  if (!(std::fabs(x) < static_cast<double>(kFourPlacesLimit) / 10000.0) || (x == 0 && std::signbit(x))) return false;
  const double scaled = std::round(x * 10000.0);
  const int64_t n = static_cast<int64_t>(scaled);
  if (static_cast<double>(n) / 10000.0 != x) return false;
  char buffer[32];
  char* p = buffer;
  uint64_t magnitude = static_cast<uint64_t>(n < 0 ? -n : n);
  if (n < 0) *p++ = '-';
  p = std::to_chars(p, buffer + sizeof buffer, magnitude / 10000).ptr;
  *p++ = '.';
  uint64_t places = magnitude % 10000;
  if (places == 0) {
    *p++ = '0';
  } else {
    for (uint64_t unit = 1000; places != 0; unit /= 10) {
      *p++ = static_cast<char>('0' + places / unit);
      places %= unit;
    }
  }
  out.append(buffer, p);
  return true;
}

namespace {

void AppendDouble(std::string& out, double x) {
  if (!std::isfinite(x)) {
    out += "null";
    return;
  }
  if (AppendFourPlaces(out, x)) return;
  char buffer[64];  // dump()'s own shortest round-trip digits (Grisu2)
  char* end = nlohmann::detail::to_chars(buffer, buffer + sizeof buffer, x);
  out.append(buffer, end);
}

// What dump(-1, ' ', false, replace) writes, appended to `out` without a serializer of its own.
void AppendJson(std::string& out, const json& j) {
  switch (j.type()) {
    case json::value_t::object: {
      out += '{';
      bool first = true;
      for (const auto& [key, value] : j.get_ref<const json::object_t&>()) {
        if (!first) out += ',';
        first = false;
        AppendString(out, key);
        out += ':';
        AppendJson(out, value);
      }
      out += '}';
      return;
    }
    case json::value_t::array: {
      out += '[';
      bool first = true;
      for (const json& value : j.get_ref<const json::array_t&>()) {
        if (!first) out += ',';
        first = false;
        AppendJson(out, value);
      }
      out += ']';
      return;
    }
    case json::value_t::string: AppendString(out, j.get_ref<const std::string&>()); return;
    case json::value_t::boolean: out += j.get<bool>() ? "true" : "false"; return;
    case json::value_t::null: out += "null"; return;
    case json::value_t::number_integer: AppendInteger(out, j.get<json::number_integer_t>()); return;
    case json::value_t::number_unsigned: AppendInteger(out, j.get<json::number_unsigned_t>()); return;
    case json::value_t::number_float: AppendDouble(out, j.get<double>()); return;
    default: out += j.dump(-1, ' ', false, json::error_handler_t::replace); return;  // binary, discarded
  }
}

}  // namespace

std::string DumpJson(const json& j) {
  std::string out;
  AppendJson(out, j);
  return out;
}

JsonWriter::JsonWriter(std::string& out) : out_(out) {
  frames_.reserve(16);
  members_.reserve(64);
}

void JsonWriter::BeforeValue() {
  if (frames_.empty()) return;
  Frame& f = frames_.back();
  if (f.object) return;  // Key() wrote the comma
  if (!f.empty) out_ += ',';
  f.empty = false;
}

void JsonWriter::Open(char bracket, bool object) {
  if (!frames_.empty() && !frames_.back().object && !frames_.back().empty) {
    const char comma_bracket[2] = {',', bracket};
    out_.append(comma_bracket, 2);
  } else {
    BeforeValue();
    out_ += bracket;
  }
  frames_.push_back({object, true, true, members_.size(), keys_.size()});
}

void JsonWriter::BeginObject() { Open('{', true); }

void JsonWriter::EndObject() {
  assert(!frames_.empty() && frames_.back().object);
  const Frame frame = frames_.back();
  if (!frame.ordered) SortMembers(frame);
  members_.resize(frame.first_member);
  keys_.resize(frame.keys_begin);
  frames_.pop_back();
  out_ += '}';
}

void JsonWriter::BeginArray() { Open('[', false); }

void JsonWriter::EndArray() {
  assert(!frames_.empty() && !frames_.back().object);
  frames_.pop_back();
  out_ += ']';
}

void JsonWriter::Key(std::string_view key) {
  assert(!frames_.empty() && frames_.back().object);
  Frame& f = frames_.back();
  if (!f.empty && f.ordered) {
    const std::string_view previous = KeyOf(members_.back());
    // keys written one after another mostly differ in their first byte
    int c = !previous.empty() && !key.empty() && previous[0] != key[0]
                ? (static_cast<unsigned char>(previous[0]) < static_cast<unsigned char>(key[0]) ? -1 : 1)
                : previous.compare(key);
    if (c == 0) throw std::logic_error("JsonWriter: key \"" + std::string(key) + "\" written twice in one object");
    if (c > 0) f.ordered = false;
  }
  const size_t begin = out_.size() + (f.empty ? 0 : 1);
  const bool plain = IsPlain(key);
  if (plain && key.size() <= kShortText) {  // ,"key": in one append
    char buffer[kShortText + 4];
    char* p = buffer;
    if (!f.empty) *p++ = ',';
    *p++ = '"';
    std::memcpy(p, key.data(), key.size());
    p += key.size();
    *p++ = '"';
    *p++ = ':';
    out_.append(buffer, static_cast<size_t>(p - buffer));
    members_.push_back({begin, begin + 1, key.size(), true});  // the key read back from out_
    f.empty = false;
    return;
  }
  if (!plain) {  // kept raw in keys_: it orders by its own bytes, not by its escapes
    if (!f.empty) out_ += ',';
    members_.push_back({begin, keys_.size(), key.size(), false});
    keys_ += key;
    AppendString(out_, key);
    out_ += ':';
  } else {  // a long plain key
    if (!f.empty) out_ += ',';
    members_.push_back({begin, begin + 1, key.size(), true});
    AppendQuoted(out_, key);
    out_ += ':';
  }
  f.empty = false;
}

void JsonWriter::SortMembers(const Frame& frame) {
  const size_t n = members_.size() - frame.first_member;
  const Member* m = members_.data() + frame.first_member;
  auto less = [&](size_t a, size_t b) { return KeyOf(m[a]) < KeyOf(m[b]); };
  // A natural merge sort: members come in a few ordered runs (the envelope's, then the kind's),
  // so merging neighbouring runs until one is left costs a comparison or two per member. Stable:
  // on equal keys the earlier run's member comes first (and the repeat is reported below).
  order_.resize(n);
  merged_.resize(n);
  for (size_t i = 0; i < n; ++i) order_[i] = i;
  for (size_t runs = 0; runs != 1;) {
    runs = 0;
    for (size_t begin = 0; begin < n; ++runs) {
      size_t middle = begin + 1;
      while (middle < n && !less(order_[middle], order_[middle - 1])) ++middle;
      size_t end = middle;
      if (end < n)
        for (++end; end < n && !less(order_[end], order_[end - 1]);) ++end;
      std::merge(order_.begin() + begin, order_.begin() + middle, order_.begin() + middle, order_.begin() + end,
                 merged_.begin() + begin, less);
      begin = end;
    }
    order_.swap(merged_);
  }
  for (size_t i = 1; i < n; ++i)
    if (KeyOf(m[order_[i - 1]]) == KeyOf(m[order_[i]]))
      throw std::logic_error("JsonWriter: key \"" + std::string(KeyOf(m[order_[i]])) + "\" written twice in one object");
  // Member i's text is [m[i].begin, m[i + 1].begin - 1) (a comma before the next), the last one's
  // runs to the end. When the text before the members is the shorter part (the result object
  // itself), the whole text is written anew and swapped in; else the members are moved aside and
  // written back.
  const size_t base = m[0].begin;
  const bool anew = base <= out_.size() - base;
  if (anew) {
    moved_.reserve(out_.capacity());
    moved_.assign(out_, 0, base);
  } else {
    moved_.assign(out_, base, std::string::npos);
    out_.resize(base);
  }
  const std::string& from = anew ? out_ : moved_;
  std::string& to = anew ? moved_ : out_;
  const size_t shift = anew ? 0 : base;
  for (size_t k = 0; k < n; ++k) {
    size_t i = order_[k];
    size_t begin = m[i].begin - shift;
    size_t end = i + 1 < n ? m[i + 1].begin - 1 - shift : from.size();
    if (k) to += ',';
    to.append(from, begin, end - begin);
  }
  if (anew) out_.swap(moved_);
}

void JsonWriter::String(std::string_view s) {
  BeforeValue();
  AppendString(out_, s);
}

void JsonWriter::Concat(std::initializer_list<std::string_view> parts) {
  BeforeValue();
  bool plain = true;
  for (std::string_view p : parts) plain = plain && IsPlain(p);
  if (plain) {
    out_ += '"';
    for (std::string_view p : parts) out_ += p;
    out_ += '"';
    return;
  }
  std::string joined;
  for (std::string_view p : parts) joined += p;
  AppendString(out_, joined);
}

void JsonWriter::StringOrNull(std::string_view s) {
  if (s.empty()) Null();
  else String(s);
}

void JsonWriter::Bool(bool b) {
  BeforeValue();
  if (b) out_.append("true", 4);
  else out_.append("false", 5);
}

void JsonWriter::Null() {
  BeforeValue();
  out_.append("null", 4);
}

void JsonWriter::Double(double x) {
  BeforeValue();
  AppendDouble(out_, x);
}

void JsonWriter::WriteInt(int64_t n) {
  BeforeValue();
  AppendInteger(out_, n);
}

void JsonWriter::WriteUint(uint64_t n) {
  BeforeValue();
  AppendInteger(out_, n);
}

void JsonWriter::Raw(std::string_view text) {
  BeforeValue();
  out_ += text;
}

void JsonWriter::Value(const json& value) {
  BeforeValue();
  AppendJson(out_, value);
}

}  // namespace scribe
