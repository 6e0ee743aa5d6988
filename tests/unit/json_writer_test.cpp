// JsonWriter (extension/core/json_writer.h): the bytes nlohmann's dump(-1, ' ', false, replace)
// writes for the DOM the same calls would have built — members in key order whatever order they
// were written in, strings escaped and invalid UTF-8 replaced as dump() does, numbers as their
// C++ type prints in a DOM — and a key written twice in one object is an error, not output.
#include "json_writer.h"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace scribe {
namespace {

using nlohmann::json;

std::string Dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

// Writes `j` through the writer's own calls (not Value), each object's members in reverse key
// order, so every object of two or more members is sorted by EndObject.
void WriteBackwards(JsonWriter& w, const json& j) {
  switch (j.type()) {
    case json::value_t::object: {
      w.BeginObject();
      const auto& members = j.get_ref<const json::object_t&>();
      for (auto it = members.rbegin(); it != members.rend(); ++it) {
        w.Key(it->first);
        WriteBackwards(w, it->second);
      }
      w.EndObject();
      return;
    }
    case json::value_t::array:
      w.BeginArray();
      for (const json& v : j) WriteBackwards(w, v);
      w.EndArray();
      return;
    case json::value_t::string: w.String(j.get_ref<const std::string&>()); return;
    case json::value_t::boolean: w.Bool(j.get<bool>()); return;
    case json::value_t::null: w.Null(); return;
    case json::value_t::number_integer: w.Int(j.get<json::number_integer_t>()); return;
    case json::value_t::number_unsigned: w.Uint(j.get<json::number_unsigned_t>()); return;
    case json::value_t::number_float: w.Double(j.get<double>()); return;
    default: FAIL() << "unexpected type";
  }
}

std::string Written(const json& j) {
  std::string out;
  JsonWriter w(out);
  WriteBackwards(w, j);
  return out;
}

const std::vector<std::string>& OddStrings() {
  static const std::vector<std::string> strings = {
      "", "plain", "quote \" and backslash \\", "\b\f\n\r\t", std::string("nul \0 inside", 12), "\x01\x1F",
      "del \x7F", "caf\xC3\xA9 \xE2\x80\xA8 \xE2\x80\xA9 \xF0\x9F\x92\x8A", "truncated \xE2\x80", "\xE2\x80",
      "stray \x80 byte", "overlong \xC0\xAF", "\xED\xA0\x80 surrogate", "\xF4\x90\x80\x80 beyond", "\xFF\xFE",
      "</script><svg onload=alert(1)>", "a,b:c}d]e{f[g\"h", "'; DROP TABLE submissions; --"};
  return strings;
}

TEST(JsonWriter, StringsAreEscapedAsDumpEscapesThem) {
  for (const std::string& s : OddStrings()) {
    std::string out;
    JsonWriter w(out);
    w.String(s);
    EXPECT_EQ(out, Dump(s)) << Dump(s);
  }
}

// The writer escapes ASCII and checks UTF-8 itself (invalid UTF-8 is left to dump()): every byte
// alone and in context, every pair of bytes, and three- and four-byte sequences over every lead
// byte with the continuation bytes at the edges of each range Unicode's Table 3-7 allows.
TEST(JsonWriter, EveryShortByteSequenceIsWrittenAsDumpWritesIt) {
  size_t checked = 0;
  auto check = [&](const std::string& s) {
    std::string out;
    JsonWriter(out).String(s);
    ASSERT_EQ(out, Dump(s)) << Dump(s);
    ++checked;
  };
  for (int a = 0; a < 256; ++a) {
    check(std::string(1, static_cast<char>(a)));
    check("a" + std::string(1, static_cast<char>(a)) + "z\"");
    for (int b = 0; b < 256; ++b) check({static_cast<char>(a), static_cast<char>(b)});
  }
  const unsigned char edges[] = {0x00, 0x0A, 0x22, 0x41, 0x5C, 0x7F, 0x80, 0x8F, 0x90, 0x9F,
                                 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xED, 0xF0, 0xF4, 0xF5, 0xFF};
  for (int lead = 0x80; lead < 256; ++lead)
    for (unsigned char b : edges)
      for (unsigned char c : edges) {
        check({static_cast<char>(lead), static_cast<char>(b), static_cast<char>(c)});
        if (lead < 0xF0 || lead > 0xF7) continue;
        for (unsigned char d : edges)
          check({static_cast<char>(lead), static_cast<char>(b), static_cast<char>(c), static_cast<char>(d), 'x'});
      }
  // Each kind of byte at each place of a longer text.
  const std::string specials[] = {std::string(1, '\0'), "\x1F", " ", "~", "\x7F", "\"", "\\", "\x80", "\xC3\xA9",
                                  "\xE2\x80\xA8", "\xF0\x9F\x92\x8A", "\xC3", "\xFF"};
  for (const std::string& special : specials)
    for (size_t at = 0; at <= 24; ++at) check(std::string(at, 'a') + special + std::string(24 - at, 'b'));
  EXPECT_GT(checked, 150000u);
}

// A key is checked a word at a time, in words that overlap or are padded for keys shorter than 8
// bytes: each kind of byte at each place of keys of every length up to 24 (and the empty key).
TEST(JsonWriter, EveryKindOfByteAtEachPlaceOfAKeyIsWrittenAsDumpWritesIt) {
  const std::string specials[] = {std::string(1, '\0'), "\x1F", " ", "!", "#", "[", "]", "~", "\x7F", "\"", "\\",
                                  "\x80", "\xC3\xA9", "\xC3", "\xFF"};
  size_t checked = 0;
  for (size_t length = 1; length <= 24; ++length)
    for (const std::string& special : specials)
      for (size_t at = 0; at < length; ++at) {
        std::string key = std::string(at, 'a') + special + std::string(length - at - 1, 'b');
        json object = {{key, 1}, {"", 2}, {"z", 3}};
        ASSERT_EQ(Written(object), Dump(object)) << Dump(key);
        ++checked;
      }
  EXPECT_EQ(checked, 15u * 300u);
}

TEST(JsonWriter, NumbersPrintAsTheirTypePrintsInADom) {
  const double doubles[] = {0.0,     -0.0,    0.1,    1.0,        -2.5, 100.0, 1e21, 1e-7, 5e-324, DBL_MIN,
                            DBL_MAX, -DBL_MAX, 0.30000000000000004, 0.6667, 1e300};
  for (double x : doubles) {
    std::string out;
    JsonWriter(out).Double(x);
    EXPECT_EQ(out, Dump(x)) << Dump(x);
  }
  EXPECT_EQ(Written(json(1.0)), "1.0");
  EXPECT_EQ(Written(json(-0.0)), "-0.0");
  EXPECT_EQ(Written(json(5e-324)), "5e-324");
  EXPECT_EQ(Written(json(DBL_MAX)), "1.7976931348623157e+308");
  for (double x : {std::nan(""), std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()}) {
    std::string out;
    JsonWriter(out).Double(x);
    EXPECT_EQ(out, "null");
    EXPECT_EQ(out, Dump(x));
  }

  std::string ints;
  JsonWriter w(ints);
  w.BeginArray();
  w.Int(1);
  w.Uint(1u);
  w.Double(1.0);
  w.Int(std::numeric_limits<int64_t>::min());
  w.Int(std::numeric_limits<int64_t>::max());
  w.Uint(std::numeric_limits<uint64_t>::max());
  w.Int(-1);
  w.Uint(size_t{0});
  w.EndArray();
  EXPECT_EQ(ints, Dump(json::array({1, 1u, 1.0, std::numeric_limits<int64_t>::min(),
                                    std::numeric_limits<int64_t>::max(), std::numeric_limits<uint64_t>::max(), -1,
                                    size_t{0}})));
  EXPECT_EQ(ints, "[1,1,1.0,-9223372036854775808,9223372036854775807,18446744073709551615,-1,0]");
}

// Every number the four-place path takes, and its neighbours, against dump()'s own digits.
TEST(JsonWriter, EveryFourPlaceNumberIsWrittenAsDumpWritesIt) {
  size_t taken = 0;
  auto dumped = [](double x) {
    char buffer[64];
    return std::string(buffer, nlohmann::detail::to_chars(buffer, buffer + sizeof buffer, x));
  };
  for (int64_t n = -kFourPlacesLimit + 1; n < kFourPlacesLimit; ++n) {
    const double x = static_cast<double>(n) / 10000.0;
    std::string out;
    ASSERT_TRUE(AppendFourPlaces(out, x)) << n;
    ASSERT_EQ(out, dumped(x)) << n;
    ++taken;
    for (double near : {std::nextafter(x, -1e9), std::nextafter(x, 1e9)}) {
      std::string other;
      if (AppendFourPlaces(other, near)) {
        ASSERT_EQ(other, dumped(near)) << n;
      }
    }
  }
  EXPECT_EQ(taken, 1999999u);
  for (double x : {-0.0, 100.0, -100.0, 1e-5, 0.00005, 1e21, std::nan(""), std::numeric_limits<double>::infinity()}) {
    std::string out;
    EXPECT_FALSE(AppendFourPlaces(out, x)) << x;
    EXPECT_EQ(out, "");
  }
  std::string out;
  for (double x : {0.0, 1.0, 0.5, 0.6667, 0.025, -2.5, 99.9999, 0.0001}) {
    ASSERT_TRUE(AppendFourPlaces(out, x));
    out += ' ';
  }
  EXPECT_EQ(out, "0.0 1.0 0.5 0.6667 0.025 -2.5 99.9999 0.0001 ");
}

TEST(JsonWriter, MembersEndUpInKeyOrder) {
  std::string out;
  JsonWriter w(out);
  w.BeginObject();
  w.Key("b");
  w.Int(1);
  w.Key("a");
  w.BeginObject();
  w.Key("d");
  w.BeginArray();
  w.EndArray();
  w.Key("c");
  w.BeginObject();
  w.EndObject();
  w.EndObject();
  w.Key("ab");
  w.String("x,\"y\":}z");
  w.Key("a_b");
  w.Null();
  w.EndObject();
  EXPECT_EQ(out, R"({"a":{"c":{},"d":[]},"a_b":null,"ab":"x,\"y\":}z","b":1})");
  EXPECT_EQ(out, Dump(json::parse(out)));

  // After a long text (the members are moved aside and back, not the text before them).
  const std::string before(1000, 'x');
  std::string after = before;
  JsonWriter v(after);
  v.BeginObject();
  v.Key("z");
  v.String("last");
  v.Key("m");
  v.BeginArray();
  v.Int(1);
  v.EndArray();
  v.Key("a");
  v.Bool(true);
  v.EndObject();
  EXPECT_EQ(after, before + R"({"a":true,"m":[1],"z":"last"})");
}

TEST(JsonWriter, KeysAreOrderedByTheirBytesAsStdMapOrdersThem) {
  // Keys that need escaping order by their raw bytes (a quote before letters, UTF-8 after), as
  // nlohmann's object does; invalid UTF-8 in a key is written as U+FFFD.
  json object = json::object();
  for (const std::string& s : OddStrings()) object[s] = s;
  object["parse_error"] = 1;
  object["parsed"] = 2;
  object["Zebra"] = 3;
  object[std::string(100, 'k')] = std::string(100, 'v');          // longer than the writer's short path
  object[std::string(70, 'k') + "\xC3\xA9"] = std::string(70, '"');
  EXPECT_EQ(Written(object), Dump(object));
}

TEST(JsonWriter, WritesWhatDumpWritesForNestedValues) {
  json nested = json::parse(R"({"z": [1, 2.5, {"y": null, "x": [true, false, [], {}]}], "a": {"m": "n", "k": -3},
                                "empty_object": {}, "empty_array": [], "deep": [[[[{"b": [{"d": 1, "c": 2}]}]]]]})");
  nested["strings"] = OddStrings();
  json keyed = json::object();
  for (const std::string& s : OddStrings()) keyed[s] = json::array({s, json::object({{s, s}, {"k", 1}})});
  nested["keyed"] = keyed;
  EXPECT_EQ(Written(nested), Dump(nested));
  for (const json& v : {json::object(), json::array(), json(nullptr), json(true), json("s"), json::array({json::object()})})
    EXPECT_EQ(Written(v), Dump(v));
}

TEST(JsonWriter, WritesDomValuesRawTextAndJoinedStrings) {
  std::string out = "prefix:";  // appended to, not cleared
  JsonWriter w(out);
  w.BeginObject();
  w.Key("value");
  w.Value(json::parse(R"({"b": [1, 2.0], "a": "\u00e9"})"));
  w.Key("raw");
  w.Raw(R"({"already":"serialized"})");
  w.Key("joined");
  w.Concat({"med:", "caf\xC3\xA9", ":", "7"});
  w.Key("plain");
  w.Concat({"claim:", "12"});
  w.Key("empty");
  w.StringOrNull("");
  w.Key("full");
  w.StringOrNull("x");
  w.Key("list");
  w.BeginArray();
  w.Raw("[1]");
  w.Value(json(nullptr));
  w.Concat({"a", "\x01"});
  w.EndArray();
  w.EndObject();
  EXPECT_EQ(out, "prefix:"
                 R"({"empty":null,"full":"x","joined":"med:café:7","list":[[1],null,"a\u0001"],"plain":"claim:12",)"
                 R"("raw":{"already":"serialized"},"value":{"a":"é","b":[1,2.0]}})");
}

TEST(JsonWriter, AKeyWrittenTwiceInOneObjectThrows) {
  auto write = [](const std::vector<std::string>& keys) {
    std::string out;
    JsonWriter w(out);
    w.BeginObject();
    for (const std::string& k : keys) {
      w.Key(k);
      w.Int(1);
    }
    w.EndObject();
    return out;
  };
  EXPECT_THROW(write({"a", "a"}), std::logic_error);            // in order: found at the key
  EXPECT_THROW(write({"b", "a", "b"}), std::logic_error);       // out of order: found when sorting
  EXPECT_THROW(write({"c", "b", "a", "c", "d"}), std::logic_error);
  EXPECT_EQ(write({"c", "b", "a"}), R"({"a":1,"b":1,"c":1})");  // distinct keys: sorted

  // The same key in different objects is not a repeat.
  std::string out;
  JsonWriter w(out);
  w.BeginObject();
  w.Key("a");
  w.BeginObject();
  w.Key("a");
  w.Int(1);
  w.EndObject();
  w.Key("b");
  w.BeginArray();
  for (int i = 0; i < 2; ++i) {
    w.BeginObject();
    w.Key("a");
    w.Int(i);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  EXPECT_EQ(out, R"({"a":{"a":1},"b":[{"a":0},{"a":1}]})");
}

TEST(JsonWriter, DumpJsonWritesWhatDumpWrites) {
  json all = json::array();
  for (const std::string& s : OddStrings()) all.push_back(json{{s, s}});
  all.push_back(-0.0);
  all.push_back(std::numeric_limits<int64_t>::min());
  all.push_back(std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(DumpJson(all), Dump(all));
}

}  // namespace
}  // namespace scribe
