// Unit tests for find.h: FindPhrase reads a phrase as the grader reads a trap phrase
// (docs/methodology.md §1 "Assertion"; the SQL face is tests/sql/find.test).
#include "find.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace scribe {
namespace {

// "mention start end assertion trigger" per finding, trigger "-" when none.
std::vector<std::string> Rows(const std::string& text, const std::string& phrase) {
  std::vector<std::string> out;
  for (const PhraseFinding& f : FindPhrase(text, phrase))
    out.push_back(f.mention + " " + std::to_string(f.char_begin) + " " + std::to_string(f.char_end) + " " +
                  std::string(AssertionName(f.assertion)) + " " + f.trigger.value_or("-"));
  return out;
}

TEST(FindPhrase, EveryMatchWithItsAssertionAndTrigger) {
  EXPECT_EQ(Rows("Denies chest pain. Chest pain since Monday.", "chest pain"),
            (std::vector<std::string>{"chest pain 7 17 negated Denies", "Chest pain 19 29 affirmed -"}));
}

TEST(FindPhrase, SynonymsAndPlurals) {
  EXPECT_EQ(Rows("No SI/HI.", "suicidal ideation"), (std::vector<std::string>{"SI 3 5 negated No"}));
  EXPECT_EQ(Rows("Heart racing at night.", "palpitations"), (std::vector<std::string>{"Heart racing 0 12 affirmed -"}));
  EXPECT_EQ(Rows("Reports headaches.", "headache"), (std::vector<std::string>{"headaches 8 17 affirmed -"}));
}

TEST(FindPhrase, NothingToFind) {
  EXPECT_TRUE(Rows("", "fever").empty());
  EXPECT_TRUE(Rows("No fever", "").empty());
  EXPECT_TRUE(Rows("No fever", "   ").empty());
  EXPECT_TRUE(Rows("No fever", "cough").empty());
}

TEST(FindPhrase, InvalidUtf8CountsOneCodePointPerByte) {
  EXPECT_EQ(Rows("\xff\xfe No fever", "fever"), (std::vector<std::string>{"fever 6 11 negated No"}));
}

}  // namespace
}  // namespace scribe
