// Unit tests for kinds/phrases.h: a PhraseSet found with the starts of a group of sets finds
// what it finds alone.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kinds/phrases.h"
#include "rules.h"
#include "text.h"

namespace scribe {
namespace {

std::string Describe(const std::vector<PhraseSet::Hit>& hits) {
  std::string s;
  for (const PhraseSet::Hit& h : hits)
    s += "[" + std::to_string(h.begin) + "," + std::to_string(h.end) + ") " + std::to_string(h.phrase) + "; ";
  return s;
}

TEST(PhraseSet, FoundWithAGroupsStartsAsAlone) {
  const Rules& rules = DefaultRules();
  PhraseSet pain({"chest pain", "palpitations", "passive suicidal ideation"}, rules);
  PhraseSet plan({"safety plan", "plan", "no plan or intent"}, rules);
  PhraseSet outside({"chest", "intent"}, rules);  // not in the group: found the plain way
  MatcherStarts group({&pain.matcher(), &plan.matcher()});
  TokenizedText text =
      Analyze("Chest pains and a palpitation; passive SI. Safety plan made, no plan or intent. Chest-pain free.", {});
  PhraseStarts starts = group.Find(text.tokens);
  EXPECT_EQ(Describe(pain.Find(text, starts)), "[0,2) 0; [4,5) 1; [6,8) 2; [18,21) 0; ");
  EXPECT_EQ(Describe(pain.Find(text, starts)), Describe(pain.Find(text)));
  EXPECT_EQ(Describe(plan.Find(text, starts)), "[9,11) 0; [13,17) 2; ");
  EXPECT_EQ(Describe(plan.Find(text, starts)), Describe(plan.Find(text)));
  EXPECT_EQ(Describe(outside.Find(text, starts)), Describe(outside.Find(text)));
  EXPECT_EQ(Describe(outside.Find(text, starts)), "[0,1) 0; [16,17) 1; [18,19) 0; ");
}

}  // namespace
}  // namespace scribe
