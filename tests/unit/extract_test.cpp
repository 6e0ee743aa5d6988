// Unit tests for extract.h: drug mentions with dose, frequency, route, action and assertion
// (docs/methodology.md §1; windows as described in extract.h).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "extract.h"

namespace scribe {
namespace {

std::vector<std::string> Drugs(const AnalyzedText& a) {
  std::vector<std::string> out;
  for (const DrugMention& m : a.drugs) out.push_back(m.drug);
  return out;
}

using Strings = std::vector<std::string>;

// Safe accessors: a missing value reads as a sentinel, so a wrong expectation fails, never crashes.
double DoseValue(const DrugMention& m) { return m.dose ? m.dose->value : -1; }
std::string DoseUnit(const DrugMention& m) { return m.dose ? m.dose->unit : "(none)"; }
double PerDay(const DrugMention& m) { return m.frequency.per_day.value_or(-1); }
std::string Route(const DrugMention& m) { return m.route.value_or("(none)"); }
std::string Action(const DrugMention& m) { return m.action.value_or("(none)"); }

// ---------------------------------------------------------------- one mention

TEST(Extract, FullSig) {
  auto a = AnalyzeText("Zoloft 50 mg PO qd");
  ASSERT_EQ(a.drugs.size(), 1u);
  const DrugMention& m = a.drugs.at(0);
  EXPECT_EQ(m.mention, "Zoloft");
  EXPECT_EQ(m.drug, "sertraline");
  EXPECT_EQ(m.rxcui, "36437");
  EXPECT_EQ(m.key, "36437");
  EXPECT_EQ(m.matched_name, "Zoloft");
  EXPECT_FALSE(m.phantom);
  ASSERT_TRUE(m.match);
  EXPECT_EQ(m.match->kind, MatchKind::kExact);
  ASSERT_TRUE(m.dose);
  EXPECT_DOUBLE_EQ(DoseValue(m), 50);
  EXPECT_EQ(DoseUnit(m), "mg");
  ASSERT_TRUE(m.frequency.per_day);
  EXPECT_DOUBLE_EQ(PerDay(m), 1);
  EXPECT_EQ(m.frequency.text, "qd");
  EXPECT_FALSE(m.frequency.prn);
  ASSERT_TRUE(m.route);
  EXPECT_EQ(Route(m), "oral");
  EXPECT_FALSE(m.action);
  EXPECT_EQ(m.assertion, Assertion::kAffirmed);
  EXPECT_EQ(m.tok_begin, 0u);
  EXPECT_EQ(m.tok_end, 1u);
  EXPECT_EQ(m.char_begin, 0u);
  EXPECT_EQ(m.char_end, 6u);
}

TEST(Extract, EmptyAndDrugFreeText) {
  EXPECT_TRUE(AnalyzeText("").drugs.empty());
  EXPECT_TRUE(AnalyzeText("Patient reports headache and poor sleep.").drugs.empty());
}

TEST(Extract, OffsetsAreCodePoints) {
  // "Über-nice: " is 11 code points (12 bytes)
  auto a = AnalyzeText("\xC3\x9C" "ber-nice: Zoloft 50 mg");
  ASSERT_EQ(a.drugs.size(), 1u);
  EXPECT_EQ(a.drugs.at(0).char_begin, 11u);
  EXPECT_EQ(a.drugs.at(0).char_end, 17u);
  EXPECT_EQ(a.drugs.at(0).mention, "Zoloft");

  // 患者 😀 Zoloft: 2 + 1 + 1 + 1 code points before the name
  auto b = AnalyzeText("\xE6\x82\xA3\xE8\x80\x85 \xF0\x9F\x98\x80 Zoloft 50 mg daily");
  ASSERT_EQ(b.drugs.size(), 1u);
  EXPECT_EQ(b.drugs.at(0).char_begin, 5u);
  EXPECT_EQ(b.drugs.at(0).char_end, 11u);
}

TEST(Extract, MultiWordAndCombinationNames) {
  auto a = AnalyzeText("Vicodin 5/325 one tab q6h prn");
  ASSERT_EQ(a.drugs.size(), 1u);
  EXPECT_EQ(a.drugs.at(0).drug, "acetaminophen / hydrocodone");
  EXPECT_EQ(a.drugs.at(0).rxcui, "161 / 5489");
  EXPECT_EQ(a.drugs.at(0).key, "161+5489");
  EXPECT_TRUE(a.drugs.at(0).frequency.prn);

  auto b = AnalyzeText("potassium chloride 20 mEq daily");
  ASSERT_EQ(b.drugs.size(), 1u);
  EXPECT_EQ(b.drugs.at(0).mention, "potassium chloride");
  ASSERT_TRUE(b.drugs.at(0).dose);
  EXPECT_EQ(DoseUnit(b.drugs.at(0)), "meq");
}

TEST(Extract, GramsMicrogramsAndCounts) {
  auto a = AnalyzeText("metformin 1 g BID");
  ASSERT_EQ(a.drugs.size(), 1u);
  EXPECT_DOUBLE_EQ(DoseValue(a.drugs.at(0)), 1000);
  EXPECT_EQ(DoseUnit(a.drugs.at(0)), "mg");
  EXPECT_DOUBLE_EQ(PerDay(a.drugs.at(0)), 2);

  auto b = AnalyzeText("levothyroxine 75 mcg every morning");
  ASSERT_EQ(b.drugs.size(), 1u);
  EXPECT_DOUBLE_EQ(DoseValue(b.drugs.at(0)), 75);
  EXPECT_EQ(DoseUnit(b.drugs.at(0)), "mcg");

  // the dose precedes the drug: "back to the previous drug"
  auto c = AnalyzeText("two 200 mg ibuprofen tablets three times a day");
  ASSERT_EQ(c.drugs.size(), 1u);
  EXPECT_DOUBLE_EQ(DoseValue(c.drugs.at(0)), 400);
  EXPECT_DOUBLE_EQ(PerDay(c.drugs.at(0)), 3);
  EXPECT_EQ(Route(c.drugs.at(0)), "(none)");  // "tablets" without a number of its own is no dose
}

TEST(Extract, InhalerSig) {
  auto a = AnalyzeText("albuterol 2 puffs q4-6h prn wheeze");
  ASSERT_EQ(a.drugs.size(), 1u);
  const DrugMention& m = a.drugs.at(0);
  EXPECT_DOUBLE_EQ(DoseValue(m), 2);
  EXPECT_EQ(DoseUnit(m), "puff");
  EXPECT_DOUBLE_EQ(PerDay(m), 6);
  EXPECT_EQ(m.frequency.text, "q4-6h");
  EXPECT_TRUE(m.frequency.prn);
  EXPECT_EQ(Route(m), "inhaled");
}

TEST(Extract, DailyTotalSetsOncePerDay) {
  auto a = AnalyzeText("sertraline 200 mg/day");
  ASSERT_EQ(a.drugs.size(), 1u);
  ASSERT_TRUE(a.drugs.at(0).frequency.per_day);
  EXPECT_DOUBLE_EQ(PerDay(a.drugs.at(0)), 1);
  EXPECT_EQ(a.drugs.at(0).frequency.text, "per day");
  ASSERT_TRUE(a.drugs.at(0).dose);
  EXPECT_TRUE(a.drugs.at(0).dose->per_day);
}

TEST(Extract, StrengthTimesTabletCount) {
  auto a = AnalyzeText("Tylenol 500 mg 2 tabs q6h prn");
  ASSERT_EQ(a.drugs.size(), 1u);
  EXPECT_EQ(a.drugs.at(0).drug, "acetaminophen");
  EXPECT_DOUBLE_EQ(DoseValue(a.drugs.at(0)), 1000);
  EXPECT_DOUBLE_EQ(PerDay(a.drugs.at(0)), 4);
  EXPECT_TRUE(a.drugs.at(0).frequency.prn);
  // every dose in the window is kept, primary first
  ASSERT_EQ(a.drugs.at(0).doses.size(), 3u);
  EXPECT_DOUBLE_EQ(a.drugs.at(0).doses.at(0).value, 1000);
  EXPECT_DOUBLE_EQ(a.drugs.at(0).doses.at(1).value, 500);
  EXPECT_EQ(a.drugs.at(0).doses.at(2).unit, "tablet");
}

TEST(Extract, DoseChange) {
  auto a = AnalyzeText("Increase sertraline from 50 mg to 100 mg daily.");
  ASSERT_EQ(a.drugs.size(), 1u);
  EXPECT_DOUBLE_EQ(DoseValue(a.drugs.at(0)), 100);
  EXPECT_EQ(Action(a.drugs.at(0)), "increase");
}

// ---------------------------------------------------------------- windows

TEST(ExtractWindows, AttributesDoNotLeakForward) {
  auto a = AnalyzeText("Sertraline and lisinopril 10 mg daily.");
  ASSERT_EQ(Drugs(a), (Strings{"sertraline", "lisinopril"}));
  EXPECT_FALSE(a.drugs.at(0).dose);
  EXPECT_FALSE(a.drugs.at(0).frequency.per_day);
  ASSERT_TRUE(a.drugs.at(1).dose);
  EXPECT_DOUBLE_EQ(DoseValue(a.drugs.at(1)), 10);
  EXPECT_DOUBLE_EQ(PerDay(a.drugs.at(1)), 1);
}

TEST(ExtractWindows, AttributesDoNotLeakBackward) {
  auto a = AnalyzeText("Sertraline 50 mg daily, lisinopril.");
  ASSERT_EQ(a.drugs.size(), 2u);
  EXPECT_DOUBLE_EQ(DoseValue(a.drugs.at(0)), 50);
  EXPECT_FALSE(a.drugs.at(1).dose);
  EXPECT_FALSE(a.drugs.at(1).frequency.per_day);
}

TEST(ExtractWindows, TwoFullSigsOnOneLine) {
  auto a = AnalyzeText("sertraline 50 mg daily and lisinopril 10 mg twice daily PO");
  ASSERT_EQ(a.drugs.size(), 2u);
  EXPECT_DOUBLE_EQ(DoseValue(a.drugs.at(0)), 50);
  EXPECT_DOUBLE_EQ(PerDay(a.drugs.at(0)), 1);
  EXPECT_FALSE(a.drugs.at(0).route);
  EXPECT_DOUBLE_EQ(DoseValue(a.drugs.at(1)), 10);
  EXPECT_DOUBLE_EQ(PerDay(a.drugs.at(1)), 2);
  EXPECT_EQ(Route(a.drugs.at(1)), "oral");
}

TEST(ExtractWindows, SentenceBoundsTheWindow) {
  auto a = AnalyzeText("Sertraline. 50 mg daily.");
  ASSERT_EQ(a.drugs.size(), 1u);
  EXPECT_FALSE(a.drugs.at(0).dose);
  EXPECT_FALSE(a.drugs.at(0).frequency.per_day);
}

TEST(ExtractWindows, FrequencyBeforeTheDrug) {
  auto a = AnalyzeText("Daily sertraline 50 mg.");
  ASSERT_EQ(a.drugs.size(), 1u);
  ASSERT_TRUE(a.drugs.at(0).frequency.per_day);
  EXPECT_DOUBLE_EQ(PerDay(a.drugs.at(0)), 1);
}

// ---------------------------------------------------------------- actions

TEST(ExtractActions, BeforeAndAfter) {
  auto a = AnalyzeText("stopped lisinopril because of cough");
  ASSERT_EQ(a.drugs.size(), 1u);
  EXPECT_EQ(Action(a.drugs.at(0)), "stop");
  auto b = AnalyzeText("Lisinopril was discontinued.");
  ASSERT_EQ(b.drugs.size(), 1u);
  EXPECT_EQ(Action(b.drugs.at(0)), "stop");
  auto c = AnalyzeText("Hold metformin.");
  EXPECT_EQ(Action(c.drugs.at(0)), "stop");
  auto d = AnalyzeText("Sertraline 50 mg, unchanged.");
  EXPECT_EQ(Action(d.drugs.at(0)), "continue");
}

TEST(ExtractActions, ListSharesItsLeadingVerb) {
  auto a = AnalyzeText("Continue metformin, lisinopril and atorvastatin.");
  ASSERT_EQ(Drugs(a), (Strings{"metformin", "lisinopril", "atorvastatin"}));
  for (const auto& m : a.drugs) {
    ASSERT_TRUE(m.action) << m.drug;
    EXPECT_EQ(Action(m), "continue") << m.drug;
  }
  auto b = AnalyzeText("Stop metformin and lisinopril.");
  ASSERT_EQ(b.drugs.size(), 2u);
  EXPECT_EQ(Action(b.drugs.at(1)), "stop");
}

TEST(ExtractActions, OwnVerbOverridesTheList) {
  auto a = AnalyzeText("Continue metformin, increase lisinopril.");
  ASSERT_EQ(a.drugs.size(), 2u);
  EXPECT_EQ(Action(a.drugs.at(0)), "continue");
  EXPECT_EQ(Action(a.drugs.at(1)), "increase");
}

TEST(ExtractActions, ListSharingStopsAtTheSentence) {
  auto a = AnalyzeText("Continue metformin. Lisinopril 10 mg daily.");
  ASSERT_EQ(a.drugs.size(), 2u);
  EXPECT_EQ(Action(a.drugs.at(0)), "continue");
  EXPECT_FALSE(a.drugs.at(1).action);
}

TEST(ExtractActions, ClauseBoundsTheAction) {
  auto a = AnalyzeText("Lisinopril 20 mg daily; the cough began soon after it was started. Discontinued today.");
  ASSERT_EQ(a.drugs.size(), 1u);
  EXPECT_FALSE(a.drugs.at(0).action);
}

// Regression test, bug fixed (extract.cpp, action window): the backward action window of a drug starts at the end of
// the previous drug, so a "both" phrase that belongs to the previous drug ("Metformin was
// stopped") is taken as a "before" phrase of the next one, and wins over the next drug's own
// phrase. Actual: lisinopril -> stop. Expected: continue — its own "was continued", and
// attributes must not leak between two drugs on a line.
TEST(ExtractActions, AfterPhraseOfPreviousDrugDoesNotLeak) {
  auto a = AnalyzeText("Metformin was stopped and lisinopril was continued.");
  ASSERT_EQ(Drugs(a), (Strings{"metformin", "lisinopril"}));
  EXPECT_EQ(Action(a.drugs.at(0)), "stop");
  ASSERT_TRUE(a.drugs.at(1).action);
  EXPECT_EQ(Action(a.drugs.at(1)), "continue");
}

// ---------------------------------------------------------------- PRN

TEST(ExtractPrn, PrnAfterTheDrug) {
  auto a = AnalyzeText("ibuprofen 400 mg q6h as needed for pain");
  ASSERT_EQ(a.drugs.size(), 1u);
  EXPECT_TRUE(a.drugs.at(0).frequency.prn);
  EXPECT_DOUBLE_EQ(PerDay(a.drugs.at(0)), 4);
}

// Regression test, bug fixed (extract.cpp): docs/methodology.md: "PRN is set by "prn", "as needed" … anywhere in the
// drug's clause", but PRN is only read in the drug's dose windows (forward to the next drug,
// backward to the last list separator). A "," is no clause end, yet "As needed for pain,
// ibuprofen 400 mg q6h." is not PRN. Actual: prn false. Expected: true.
TEST(ExtractPrn, PrnAnywhereInTheClause) {
  auto a = AnalyzeText("As needed for pain, ibuprofen 400 mg q6h.");
  ASSERT_EQ(a.drugs.size(), 1u);
  EXPECT_TRUE(a.drugs.at(0).frequency.prn);
  EXPECT_DOUBLE_EQ(PerDay(a.drugs.at(0)), 4);
}

// ---------------------------------------------------------------- assertion

TEST(ExtractAssertion, PerMention) {
  EXPECT_EQ(AnalyzeText("denies taking ibuprofen").drugs.at(0).assertion, Assertion::kNegated);
  EXPECT_EQ(AnalyzeText("mother takes warfarin").drugs.at(0).assertion, Assertion::kFamily);
  EXPECT_EQ(AnalyzeText("no longer on amlodipine").drugs.at(0).assertion, Assertion::kHistorical);
  auto a = AnalyzeText("If pain persists, start gabapentin 300 mg at bedtime. Family history: father on Coumadin.");
  ASSERT_EQ(Drugs(a), (Strings{"gabapentin", "warfarin"}));
  EXPECT_EQ(a.drugs.at(0).assertion, Assertion::kHypothetical);
  EXPECT_DOUBLE_EQ(PerDay(a.drugs.at(0)), 1);
  EXPECT_EQ(a.drugs.at(1).assertion, Assertion::kFamily);
  EXPECT_EQ(a.drugs.at(1).mention, "Coumadin");
}

// ---------------------------------------------------------------- approximate, phantom, words

TEST(ExtractNames, MisspellingsResolve) {
  auto a = AnalyzeText("Patient on sertaline, metformn and lisinipril. Reports headache.");
  ASSERT_EQ(Drugs(a), (Strings{"sertraline", "metformin", "lisinopril"}));
  EXPECT_EQ(a.drugs.at(0).mention, "sertaline");
  ASSERT_TRUE(a.drugs.at(0).match);
  EXPECT_EQ(a.drugs.at(0).match->kind, MatchKind::kApproximate);
  EXPECT_EQ(a.drugs.at(0).matched_name, "sertraline");
}

TEST(ExtractNames, OrdinaryWordsAreNotDrugs) {
  auto a = AnalyzeText("Patient reports a history of taking tablets in the morning; ability to cope is ambient.");
  EXPECT_TRUE(a.drugs.empty());
  EXPECT_TRUE(AnalyzeText("Today she feels fine.").drugs.empty());
}

TEST(ExtractNames, Phantom) {
  auto a = AnalyzeText("Started Zyntrafex 20 mg daily for mood.");
  ASSERT_EQ(a.drugs.size(), 1u);
  const DrugMention& m = a.drugs.at(0);
  EXPECT_TRUE(m.phantom);
  EXPECT_FALSE(m.match);
  EXPECT_EQ(m.mention, "Zyntrafex");
  EXPECT_EQ(m.drug, "");
  EXPECT_EQ(m.rxcui, "");
  EXPECT_EQ(m.key, "phantom:zyntrafex");
  EXPECT_DOUBLE_EQ(DoseValue(m), 20);
  EXPECT_EQ(Action(m), "start");
}

TEST(ExtractNames, PhantomWithFormulationWord) {
  auto a = AnalyzeText("Zyntrafex XR 20 mg daily");
  ASSERT_EQ(a.drugs.size(), 1u);
  EXPECT_TRUE(a.drugs.at(0).phantom);
  EXPECT_EQ(a.drugs.at(0).mention, "Zyntrafex");
}

TEST(ExtractNames, NotPhantomWithoutAMassDose) {
  EXPECT_TRUE(AnalyzeText("Zyntrafex daily").drugs.empty());
  EXPECT_TRUE(AnalyzeText("Zyntrafex 2 tablets").drugs.empty());  // a count is not a strength
  EXPECT_TRUE(AnalyzeText("Walked 20 mg").drugs.empty());          // English word
  EXPECT_TRUE(AnalyzeText("ZYNTRAFEX 20 mg").drugs.empty());       // all caps: an acronym
  // melatonin is an RxNorm ingredient (6711) and listed as a supplement: a real drug, never phantom
  auto mel = AnalyzeText("melatonin 3 mg");
  ASSERT_EQ(mel.drugs.size(), 1u);
  EXPECT_FALSE(mel.drugs.at(0).phantom);
  EXPECT_EQ(mel.drugs.at(0).key, "6711");
}

// ---------------------------------------------------------------- measurements

TEST(ExtractLabs, LabValuesAreNotDrugs) {
  EXPECT_TRUE(AnalyzeText("Potassium 4.1").drugs.empty());
  EXPECT_TRUE(AnalyzeText("Glucose 180 mg/dL").drugs.empty());
  EXPECT_TRUE(AnalyzeText("Oxygen saturation 98% on room air.").drugs.empty());
  EXPECT_TRUE(AnalyzeText("Serum lithium level 0.8.").drugs.empty());
  EXPECT_TRUE(AnalyzeText("Lithium level 0.8").drugs.empty());
  EXPECT_TRUE(AnalyzeText("Potassium: 4.1").drugs.empty());
  EXPECT_TRUE(AnalyzeText("Check potassium tomorrow").drugs.empty());
}

TEST(ExtractLabs, SameNamesWithADoseAreDrugs) {
  auto a = AnalyzeText("Continue lithium 300 mg twice daily and potassium chloride 20 mEq daily.");
  ASSERT_EQ(Drugs(a), (Strings{"lithium", "potassium chloride"}));
  EXPECT_DOUBLE_EQ(DoseValue(a.drugs.at(0)), 300);
  EXPECT_DOUBLE_EQ(DoseValue(a.drugs.at(1)), 20);
  EXPECT_EQ(DoseUnit(a.drugs.at(1)), "meq");
  auto b = AnalyzeText("Potassium 20 mEq daily");
  ASSERT_EQ(b.drugs.size(), 1u);
}

}  // namespace
}  // namespace scribe
