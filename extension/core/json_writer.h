// json_writer.h — results written as JSON text directly: the bytes DumpJson writes for the DOM
// the same calls would have built (nlohmann's dump(-1, ' ', false, replace): compact, object
// members in key order, invalid UTF-8 as U+FFFD), without building the DOM.
//
//   std::string out;
//   JsonWriter w(out);
//   w.BeginObject();
//   w.Key("score");  w.Double(0.5);
//   w.Key("items");  w.BeginArray(); w.Uint(3u); w.EndArray();
//   w.Key("name");   w.String("caf\xC3\xA9");
//   w.EndObject();   // out == {"items":[3],"name":"café","score":0.5}
//
// Numbers keep their C++ type as a DOM would: Double(1.0) writes 1.0, Int(1) and Uint(1u) write
// 1 (Double takes only a double, Int only a signed and Uint only an unsigned integer, so a
// caller cannot print one as the other by accident). An object's members are put in key order
// (std::map's, as nlohmann's object keeps them) when it ends; a caller may write them in any
// order, and writing them in order saves moving them. A key written twice in one object throws
// std::logic_error: a DOM would have kept the last value, and the text would keep both.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace scribe {

class JsonWriter {
 public:
  // Appends to `out` (which it does not clear).
  explicit JsonWriter(std::string& out);
  JsonWriter(const JsonWriter&) = delete;
  JsonWriter& operator=(const JsonWriter&) = delete;

  void BeginObject();
  // Ends the innermost object, its members in key order; throws std::logic_error on a key written
  // twice.
  void EndObject();
  void BeginArray();
  void EndArray();
  // The next member's key, in the innermost object; its value is the next thing written.
  void Key(std::string_view key);

  void String(std::string_view s);
  // One string made of `parts` ("med:" + name) without building it first.
  void Concat(std::initializer_list<std::string_view> parts);
  // null for an empty string, else the string (what `s.empty() ? json(nullptr) : json(s)` wrote).
  void StringOrNull(std::string_view s);
  void Bool(bool b);
  void Null();
  // Shortest round-trip digits as dump() writes them (1.0, 0.1, 1e+21, -0.0); NaN and ±inf as null.
  void Double(double x);
  template <class T>
  void Double(T) = delete;  // an integer or a float would print differently in a DOM
  template <class T>
  void Int(T n) {
    static_assert(std::is_integral_v<T> && std::is_signed_v<T>, "Int takes a signed integer");
    WriteInt(static_cast<int64_t>(n));
  }
  template <class T>
  void Uint(T n) {
    static_assert(std::is_integral_v<T> && std::is_unsigned_v<T> && !std::is_same_v<T, bool>,
                  "Uint takes an unsigned integer");
    WriteUint(static_cast<uint64_t>(n));
  }
  // A value that is already JSON text as DumpJson writes it (a cached serialization).
  void Raw(std::string_view text);
  // A DOM value (a parsed answer, versions), serialized in place.
  void Value(const nlohmann::json& value);

 private:
  struct Frame {
    bool object;
    bool empty = true;    // nothing written in it yet (no comma before the next item)
    bool ordered = true;  // every key so far came after the one before it
    size_t first_member;  // its members are members_[first_member..]
    size_t keys_begin;    // and their escaped keys keys_[keys_begin..]
  };
  struct Member {
    size_t begin;      // where its text ("key":value) starts in out_
    size_t key_begin;  // where its key's own bytes are: in out_ (a key written as it is) or in keys_
    size_t key_size;
    bool key_in_out;
  };
  void BeforeValue();
  void Open(char bracket, bool object);
  void WriteInt(int64_t n);
  void WriteUint(uint64_t n);
  std::string_view KeyOf(const Member& m) const {
    return std::string_view((m.key_in_out ? out_.data() : keys_.data()) + m.key_begin, m.key_size);
  }
  // Puts the members of the innermost object in key order (stable), checking for repeated keys.
  void SortMembers(const Frame& frame);

  std::string& out_;
  std::vector<Frame> frames_;
  std::vector<Member> members_;         // of the open objects, innermost last
  std::string keys_;                    // their keys that needed escaping, raw (they order by these bytes)
  std::vector<size_t> order_, merged_;  // scratch for SortMembers
  std::string moved_;                   // scratch for SortMembers
};

// How results are serialized: compact, keys sorted, invalid UTF-8 written as U+FFFD; the bytes
// of j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).
std::string DumpJson(const nlohmann::json& j);

// Appends what dump() writes for x when x is a number of at most four decimal places (the double
// nearest n / 10^4, |n| < kFourPlacesLimit: every score and weight Round4 publishes) without
// dump()'s digit generation, and says whether it did; otherwise appends nothing.
constexpr int64_t kFourPlacesLimit = 1'000'000;
bool AppendFourPlaces(std::string& out, double x);

}  // namespace scribe
