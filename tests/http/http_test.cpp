// http_test.cpp — the pure helpers of fcgi/: vendor rules, submit-body parsing, header checks.
// The HTTP suites (test_*.py) cover the same rules end to end through nginx.
#include <gtest/gtest.h>

#include <string>

#include "http.h"
#include "store_regrade.h"
#include "validate.h"

namespace scribe::http {
namespace {

TEST(VendorProblem, AcceptsTheAllowedAlphabet) {
  EXPECT_EQ(VendorProblem("Acme Scribe 2.1 (beta) x_y-z+w"), std::nullopt);
  EXPECT_EQ(VendorProblem("7"), std::nullopt);
  EXPECT_EQ(VendorProblem(std::string(64, 'a')), std::nullopt);
}

TEST(VendorProblem, NamesTheRuleThatFailed) {
  EXPECT_EQ(VendorProblem(""), "vendor must not be empty");
  EXPECT_EQ(VendorProblem(std::string(65, 'a')), "vendor must be at most 64 characters (got 65)");
  EXPECT_EQ(VendorProblem(" a"), "vendor must start with an ASCII letter or digit");
  EXPECT_EQ(VendorProblem("(a)"), "vendor must start with an ASCII letter or digit");
  EXPECT_EQ(VendorProblem("a "), "vendor must not end with a space");
  EXPECT_EQ(VendorProblem("a  b"), "vendor must not contain two spaces in a row");
  EXPECT_EQ(VendorProblem("a<b"),
            "vendor may contain only ASCII letters, digits, spaces and . _ - + ( ); '<' at position 2 is not allowed");
  EXPECT_EQ(VendorProblem("ab\xc3\xa9"),
            "vendor may contain only ASCII letters, digits, spaces and . _ - + ( ); a non-ASCII character at position "
            "3 is not allowed");
  EXPECT_EQ(VendorProblem(std::string("a\0b", 3)),
            "vendor may contain only ASCII letters, digits, spaces and . _ - + ( ); a control character at position 2 "
            "is not allowed");
}

TEST(VendorProblem, CountsCharactersNotBytes) {
  std::string e_acute = "\xc3\xa9";
  std::string name;
  for (int i = 0; i < 65; ++i) name += e_acute;
  EXPECT_EQ(VendorProblem(name), "vendor must be at most 64 characters (got 65)");
}

TEST(ParseSubmission, ValidBody) {
  auto r = ParseSubmission(R"({"script_id":"03-x","vendor":"Acme","scribe_output":" No SI.","extra":1})");
  ASSERT_TRUE(std::holds_alternative<Submission>(r));
  EXPECT_EQ(std::get<Submission>(r).script_id, "03-x");
  EXPECT_EQ(std::get<Submission>(r).scribe_output, " No SI.");
  EXPECT_FALSE(std::get<Submission>(r).dry_run);
  EXPECT_EQ(std::get<Submission>(r).corpus_hash, "");
}

TEST(ParseSubmission, Problems) {
  auto problem = [](std::string_view body) {
    auto r = ParseSubmission(body);
    EXPECT_TRUE(std::holds_alternative<BodyProblem>(r)) << body;
    const auto& p = std::get<BodyProblem>(r);
    return std::to_string(p.status) + " " + p.code + " " + p.message;
  };
  EXPECT_EQ(problem("{"), "400 malformed_json request body is not valid JSON");
  EXPECT_EQ(problem("{\"vendor\":\"\xff\"}"), "400 malformed_json request body is not valid JSON");
  EXPECT_EQ(problem("[]"), "422 invalid_body request body must be a JSON object");
  EXPECT_EQ(problem("{}"), "422 missing_field script_id is required");
  EXPECT_EQ(problem(R"({"script_id":1})"), "422 invalid_field script_id must be a string");
  EXPECT_EQ(problem(R"({"script_id":"a"})"), "422 missing_field vendor is required");
  EXPECT_EQ(problem(R"({"script_id":"a","vendor":"v"})"), "422 missing_field scribe_output is required");
  EXPECT_EQ(problem(R"({"script_id":"a","vendor":"v","scribe_output":null})"),
            "422 invalid_field scribe_output must be a string");
  std::string long_note = R"({"script_id":"a","vendor":"v","scribe_output":")" + std::string(200001, 'x') + "\"}";
  EXPECT_EQ(problem(long_note), "422 invalid_field scribe_output must be at most 200000 characters (got 200001)");
  EXPECT_EQ(problem(R"({"script_id":"a","vendor":"v","scribe_output":" \n\t"})"),
            "422 invalid_field scribe_output must not be empty or only whitespace");
  EXPECT_EQ(problem(R"({"script_id":"a","vendor":"v","scribe_output":"x","dry_run":"true"})"),
            "422 invalid_field dry_run must be true or false");
  EXPECT_EQ(problem(R"({"script_id":"a","vendor":"v","scribe_output":"x","corpus_hash":"ABC"})"),
            "422 invalid_field corpus_hash must be 64 lower-case hexadecimal characters (a SHA-256)");
}

TEST(Headers, ContentLength) {
  EXPECT_EQ(ParseContentLength("0"), 0u);
  EXPECT_EQ(ParseContentLength("262144"), 262144u);
  EXPECT_EQ(ParseContentLength(nullptr), std::nullopt);
  EXPECT_EQ(ParseContentLength(""), std::nullopt);
  EXPECT_EQ(ParseContentLength("-1"), std::nullopt);
  EXPECT_EQ(ParseContentLength("1e3"), std::nullopt);
  EXPECT_EQ(ParseContentLength(" 1"), std::nullopt);
  EXPECT_EQ(ParseContentLength("9999999999999999999"), std::nullopt);
}

TEST(Headers, JsonMediaType) {
  EXPECT_TRUE(IsJsonMediaType("application/json"));
  EXPECT_TRUE(IsJsonMediaType("Application/JSON; charset=utf-8"));
  EXPECT_FALSE(IsJsonMediaType(""));
  EXPECT_FALSE(IsJsonMediaType("text/json"));
  EXPECT_FALSE(IsJsonMediaType("application/json-patch+json"));
}

TEST(Headers, IfNoneMatch) {
  EXPECT_TRUE(IfNoneMatchMatches("\"abc\"", "\"abc\""));
  EXPECT_TRUE(IfNoneMatchMatches("W/\"abc\"", "\"abc\""));
  EXPECT_TRUE(IfNoneMatchMatches("\"x\", \"abc\"", "\"abc\""));
  EXPECT_TRUE(IfNoneMatchMatches(" * ", "\"abc\""));
  EXPECT_FALSE(IfNoneMatchMatches("\"abcd\"", "\"abc\""));
  EXPECT_FALSE(IfNoneMatchMatches("abc", "\"abc\""));
}

TEST(Errors, JsonShapeAndEscaping) {
  Response r = JsonError(404, "unknown_trial", "unknown trial '\"<x>\xff'");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(r.content_type, "application/json");
  EXPECT_EQ(r.body, "{\"error\":{\"code\":\"unknown_trial\",\"message\":\"unknown trial '\\\"<x>\xef\xbf\xbd'\"}}\n");
  EXPECT_EQ(r.headers, (std::vector<std::pair<std::string, std::string>>{{"Cache-Control", "no-cache"}}));
}

TEST(Errors, StorageStatuses) {
  EXPECT_STREQ(StatusReason(507), "Insufficient Storage");
  EXPECT_EQ(ResponseHead(JsonError(507, "storage_full", "x")).rfind("Status: 507 Insufficient Storage\r\n", 0), 0u);
}

TEST(Headers, NginxMsec) {
  EXPECT_EQ(ParseMsec("1735689600.123"), 1735689600123);
  EXPECT_EQ(ParseMsec("0.000"), 0);
  for (const char* bad : {"", "1735689600", "1735689600.12", "1735689600.1234", ".123", "-1.000", "1e9.000",
                          "17356896001234.000", " 1.000", "1.000 ", "1,000"})
    EXPECT_EQ(ParseMsec(bad), std::nullopt) << bad;
  EXPECT_EQ(ParseMsec(nullptr), std::nullopt);
}

TEST(Errors, ResponseHeadStartsWithStatusAndContentType) {
  Response r = JsonError(422, "invalid_field", "x");
  r.headers.emplace_back("Allow", "POST");
  std::string head = ResponseHead(r);
  EXPECT_EQ(head.rfind("Status: 422 Unprocessable Content\r\nContent-Type: application/json\r\nContent-Length: ", 0), 0u);
  EXPECT_NE(head.find("\r\nAllow: POST\r\n\r\n"), std::string::npos);
}

}  // namespace
}  // namespace scribe::http

// What a grader in cluster mode logs at start about its versions and the store's (main.cpp).
TEST(StoreVersions, AGraderLogsWhetherTheStoreCountsWhatItGrades) {
  using scribe::http::CompareVersions;
  const std::string a(64, 'a'), b(64, 'b');
  EXPECT_EQ(CompareVersions({"2.4.0", a}, {"2.4.0", a}),
            "the store counts this grader's versions (grader 2.4.0, corpus " + a + ")");
  EXPECT_EQ(CompareVersions({"2.4.0", a}, {"2.4.0", ""}),
            "warning: no corpus is published on the store: submits answer 503 corpus_not_published until this "
            "grader's corpus " + a + " is (cluster/publish)");
  EXPECT_EQ(CompareVersions({"2.4.0", a}, {"2.4.0", b}),
            "warning: this grader's corpus " + a + " is not the store's current corpus (" + b +
                "): what it stores is not counted in the standings (and its submits answer 503 corpus_not_published "
                "if the store has never had its corpus); start it with the store's corpus, or publish this one "
                "(cluster/publish)");
  // The corpus is named first: it decides whether anything is stored at all.
  EXPECT_EQ(CompareVersions({"2.5.0", a}, {"2.4.0", b}).rfind("warning: this grader's corpus ", 0), 0u);
  EXPECT_EQ(CompareVersions({"2.5.0", a}, {"2.4.0", a}),
            "warning: this grader is version 2.5.0 and the store's standings count grades of 2.4.0 (its voters' "
            "extension): what this grader stores is counted once the voters run its build (docs/scale-out.md, "
            "\"Upgrading graders one at a time\")");
}
