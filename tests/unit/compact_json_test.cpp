// compact_json_test.cpp — IsCompactJson accepts strict compact JSON and nothing else.
#include "compact_json.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace scribe {
namespace {

TEST(CompactJson, AcceptsStrictCompactValues) {
  for (const char* text : {"{}", "[]", "0", "-0", "1.5", "-2.25e-3", "1E+400", "6e7", "true", "false", "null",
                           "\"\"", "\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\\u00e9\\uD83D\\uDE00\"", "{\"a\":[1,{\"b\":null}],\"c\":\"x\"}",
                           "[[],{},[[]]]", "{\"a\":1,\"a\":2}", "\"Zo\xC3\xAB \xE5\x90\x8D\"", "\"\xFF\xFE\""})
    EXPECT_TRUE(IsCompactJson(text)) << text;
}

TEST(CompactJson, RejectsWhiteSpaceAndAnythingBeyondStrictJson) {
  for (const char* text : {"", " {}", "{} ", "{ }", "[1, 2]", "{\"a\" :1}", "\n[]", "01", "1.", ".5", "+1", "1e", "1e+",
                           "-", "--1", "0x10", "tru", "nulll", "\"abc", "\"\\x41\"", "\"\\u12\"", "\"\\u12G4\"",
                           "[1,]", "{\"a\":1,}", "{,}", "[,1]", "{\"a\"}", "{\"a\":}", "{1:2}", "{'a':1}", "{}{}",
                           "[1]]", "[[1]", "{\"a\":[1,2}", "\"a\tb\"", "NaN", "Infinity"})
    EXPECT_FALSE(IsCompactJson(text)) << text;
  EXPECT_FALSE(IsCompactJson(std::string("\"a\0b\"", 5)));
}

TEST(CompactJson, EveryByteAtEveryPlaceInALongStringIsJudgedAlone) {
  // Each byte value, at each of 18 places in a 20-byte string (every offset in an 8-byte word,
  // for a scan that reads words), is accepted exactly when JSON allows it unescaped (not '"',
  // not '\\', not below 0x20; the scan does not judge UTF-8).
  int wrong = 0;
  for (int c = 0; c < 256; ++c)
    for (int k = 0; k < 18; ++k) {
      std::string text = "[\"" + std::string(static_cast<size_t>(k), 'a') + static_cast<char>(c) +
                         std::string(static_cast<size_t>(17 - k), 'z') + "\"]";
      const bool plain = c >= 0x20 && c != '"' && c != '\\';
      if (IsCompactJson(text) != plain) {
        ++wrong;
        ADD_FAILURE() << "byte " << c << " at " << k;
      }
    }
  EXPECT_EQ(wrong, 0);
  // An escape after a plain run of a whole word, and a plain run that ends at the text's end.
  EXPECT_TRUE(IsCompactJson("\"abcdefgh\\u00e9ijklmnop\\n\""));
  EXPECT_FALSE(IsCompactJson("\"abcdefghijklmnop"));
}

TEST(CompactJson, NestingIsBoundedWithoutRecursion) {
  std::string ok(kMaxCompactDepth, '['), deep(kMaxCompactDepth + 1, '[');
  ok += std::string(kMaxCompactDepth, ']');
  deep += std::string(kMaxCompactDepth + 1, ']');
  EXPECT_TRUE(IsCompactJson(ok));
  EXPECT_FALSE(IsCompactJson(deep));
  EXPECT_FALSE(IsCompactJson(std::string(1000000, '[')));  // linear, no stack overflow
}

}  // namespace
}  // namespace scribe

namespace scribe {
namespace {

TEST(CompactJson, TopLevelMembersWithTheirValuesText) {
  std::vector<JsonMember> m;
  ASSERT_TRUE(IsCompactJson(R"({"a":1,"b\"c":{"x":[1,{}]},"d":"s","e":[],"f":{},"g":true,"h":null,"i":-2.5e3})", &m));
  std::vector<std::pair<std::string, std::string>> got;
  for (const auto& [k, v] : m) got.emplace_back(std::string(k), std::string(v));
  EXPECT_EQ(got, (std::vector<std::pair<std::string, std::string>>{{"a", "1"}, {"b\\\"c", R"({"x":[1,{}]})"}, {"d", "\"s\""},
                                                                    {"e", "[]"}, {"f", "{}"}, {"g", "true"}, {"h", "null"},
                                                                    {"i", "-2.5e3"}}));
  m.clear();
  EXPECT_TRUE(IsCompactJson("[1,{\"a\":2}]", &m));
  EXPECT_TRUE(m.empty()) << "only a top-level object has members";
  EXPECT_TRUE(IsCompactJson("{}", &m));
  EXPECT_TRUE(m.empty());
}

}  // namespace
}  // namespace scribe
