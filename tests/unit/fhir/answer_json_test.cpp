// Unit tests for fhir/answer_json.h: the JSON object anywhere in an answer, and the reasons
// when there is none or more than one.
#include "fhir/answer_json.h"

#include <gtest/gtest.h>

#include <string>

namespace scribe::fhir {
namespace {

AnswerObject Find(std::string_view text) {
  return FindAnswerObject(text, HasKey("active_medications"), "the key \"active_medications\"");
}

TEST(FindAnswerObject, BareObject) {
  AnswerObject a = Find(R"({"active_medications": []})");
  ASSERT_TRUE(a.ok) << a.error;
  EXPECT_EQ(a.value.dump(), R"({"active_medications":[]})");
}

TEST(FindAnswerObject, FencedAfterProse) {
  AnswerObject a = Find(
      "Here is the list:\n```json\n{\"active_medications\": [{\"code\": \"1\", \"display\": \"x}\"}]}\n```\nDone.");
  ASSERT_TRUE(a.ok) << a.error;
  EXPECT_EQ(a.value["active_medications"][0]["display"], "x}");
}

TEST(FindAnswerObject, BracesInProseBeforeTheObject) {
  AnswerObject a = Find("Using the {bundle} I found { this: } and {\"active_medications\": [], \"note\": \"{\"}");
  ASSERT_TRUE(a.ok) << a.error;
  EXPECT_EQ(a.value["note"], "{");
}

TEST(FindAnswerObject, ObjectInsideAnUnparseableSpan) {
  AnswerObject a = Find("{ answer: {\"active_medications\": []} }");
  ASSERT_TRUE(a.ok) << a.error;
  EXPECT_EQ(a.value.dump(), R"({"active_medications":[]})");
}

TEST(FindAnswerObject, IdenticalRepeatsAreOneAnswer) {
  AnswerObject a = Find("{\"active_medications\": []}\nAgain: {\"active_medications\": []}");
  EXPECT_TRUE(a.ok) << a.error;
}

TEST(FindAnswerObject, Reasons) {
  EXPECT_EQ(Find("").error, "the answer is empty");
  EXPECT_EQ(Find(" \n\t").error, "the answer is empty");
  EXPECT_EQ(Find("I could not find any medications.").error, "no JSON object in the answer");
  EXPECT_EQ(Find("[{\"code\": \"1\"}]").error, "no JSON object in the answer has the key \"active_medications\"");
  EXPECT_EQ(Find("[1, 2, 3]").error, "no JSON object in the answer");
  EXPECT_EQ(Find("{\"medications\": []}").error, "no JSON object in the answer has the key \"active_medications\"");
  EXPECT_EQ(Find("{\"active_medications\": [], }").error, "no JSON object in the answer");
  EXPECT_EQ(Find("{\"active_medications\": []} or {\"active_medications\": [{\"code\": \"1\"}]}").error,
            "the answer has 2 different JSON objects with the key \"active_medications\"; give exactly one");
  EXPECT_EQ(Find(std::string(kMaxAnswerBytes + 1, ' ') + "{}").error,
            "the answer is 262147 bytes; the limit is 262144");
}

TEST(FindAnswerObject, TooDeepObjectsAreNotParsed) {
  std::string deep = "{\"active_medications\": " + std::string(100, '[') + std::string(100, ']') + "}";
  EXPECT_EQ(Find(deep).error, "the JSON object in the answer is nested deeper than 64 levels");
  std::string very_deep = "{\"a\": " + std::string(100000, '[') + std::string(100000, ']') + "}";
  EXPECT_EQ(Find(very_deep).error, "the JSON object in the answer is nested deeper than 64 levels");
}

TEST(FindAnswerObject, ManyUnclosedBracesStayBounded) {
  std::string text(200000, '{');
  EXPECT_EQ(Find(text).error, "no JSON object in the answer");
}

TEST(FindAnswerObject, ResourceTypePredicate) {
  AnswerObject a = FindAnswerObject("{\"resourceType\": \"Patient\"} {\"resourceType\": \"MedicationStatement\"}",
                                    HasResourceType("MedicationStatement"), "x");
  ASSERT_TRUE(a.ok) << a.error;
  EXPECT_EQ(a.value["resourceType"], "MedicationStatement");
}

}  // namespace
}  // namespace scribe::fhir
