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
