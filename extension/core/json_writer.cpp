// json_writer.cpp — JSON text as nlohmann's compact dump writes it (see json_writer.h).
#include "json_writer.h"

#include <algorithm>
#include <cassert>
#include <charconv>
#include <cmath>
#include <stdexcept>

namespace scribe {
namespace {

using nlohmann::json;

// Whether dump() writes `s` as its own bytes between quotes: printable ASCII without a quote or a
// backslash.
bool IsPlain(std::string_view s) {
  for (unsigned char c : s)
    if (c < 0x20 || c >= 0x7F || c == '"' || c == '\\') return false;
  return true;
}

// What dump() writes for a string: the common case (IsPlain) is copied; anything else (controls,
// non-ASCII, invalid UTF-8) is left to dump() itself, so escapes and replacement characters are
// its own.
void AppendString(std::string& out, std::string_view s) {
  if (!IsPlain(s)) {
    out += json(std::string(s)).dump(-1, ' ', false, json::error_handler_t::replace);
    return;
  }
  out += '"';
  out += s;
  out += '"';
}

template <typename Number>
void AppendInteger(std::string& out, Number n) {
  char buffer[24];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, n);
  out.append(buffer, end);
}

void AppendDouble(std::string& out, double x) {
  if (!std::isfinite(x)) {
    out += "null";
    return;
  }
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
  keys_.reserve(512);
}

void JsonWriter::BeforeValue() {
  if (frames_.empty()) return;
  Frame& f = frames_.back();
  if (f.object) return;  // Key() wrote the comma
  if (!f.empty) out_ += ',';
  f.empty = false;
}

void JsonWriter::BeginObject() {
  BeforeValue();
  out_ += '{';
  frames_.push_back({true, true, true, members_.size(), keys_.size()});
}

void JsonWriter::EndObject() {
  assert(!frames_.empty() && frames_.back().object);
  const Frame frame = frames_.back();
  if (!frame.ordered) SortMembers(frame);
  members_.resize(frame.first_member);
  keys_.resize(frame.keys_begin);
  frames_.pop_back();
  out_ += '}';
}

void JsonWriter::BeginArray() {
  BeforeValue();
  out_ += '[';
  frames_.push_back({false, true, true, members_.size(), keys_.size()});
}

void JsonWriter::EndArray() {
  assert(!frames_.empty() && !frames_.back().object);
  frames_.pop_back();
  out_ += ']';
}

void JsonWriter::Key(std::string_view key) {
  assert(!frames_.empty() && frames_.back().object);
  Frame& f = frames_.back();
  if (!f.empty) {
    out_ += ',';
    if (f.ordered) {
      int c = KeyOf(members_.back()).compare(key);
      if (c == 0) throw std::logic_error("JsonWriter: key \"" + std::string(key) + "\" written twice in one object");
      if (c > 0) f.ordered = false;
    }
  }
  f.empty = false;
  members_.push_back({out_.size(), keys_.size(), key.size()});
  keys_ += key;
  AppendString(out_, key);
  out_ += ':';
}

void JsonWriter::SortMembers(const Frame& frame) {
  const size_t n = members_.size() - frame.first_member;
  const Member* m = members_.data() + frame.first_member;
  order_.resize(n);
  for (size_t i = 0; i < n; ++i) order_[i] = i;
  std::stable_sort(order_.begin(), order_.end(), [&](size_t a, size_t b) { return KeyOf(m[a]) < KeyOf(m[b]); });
  for (size_t i = 1; i < n; ++i)
    if (KeyOf(m[order_[i - 1]]) == KeyOf(m[order_[i]]))
      throw std::logic_error("JsonWriter: key \"" + std::string(KeyOf(m[order_[i]])) + "\" written twice in one object");
  // Member i's text is [m[i].begin, m[i + 1].begin - 1) (a comma before the next), the last one's
  // runs to the end.
  const size_t base = m[0].begin;
  moved_.assign(out_, base, std::string::npos);
  out_.resize(base);
  for (size_t k = 0; k < n; ++k) {
    size_t i = order_[k];
    size_t begin = m[i].begin - base;
    size_t end = i + 1 < n ? m[i + 1].begin - 1 - base : moved_.size();
    if (k) out_ += ',';
    out_.append(moved_, begin, end - begin);
  }
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
  out_ += b ? "true" : "false";
}

void JsonWriter::Null() {
  BeforeValue();
  out_ += "null";
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
