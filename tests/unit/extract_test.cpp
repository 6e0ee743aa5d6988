// Unit tests for extract.h: drug mentions with dose, frequency, route, action and assertion
// (docs/methodology.md §1; windows as described in extract.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
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

// A phantom needs a number right after it (or after one short formulation word) within its
// sentence; whether the word is known is asked only then.
TEST(ExtractNames, PhantomNeedsANumberWithinItsSentence) {
  EXPECT_TRUE(AnalyzeText("Zyntrafex 20").drugs.empty());
  EXPECT_TRUE(AnalyzeText("Zyntrafex. 20 mg daily").drugs.empty());
  EXPECT_TRUE(AnalyzeText("Zyntrafex XR. 20 mg daily").drugs.empty());
  EXPECT_TRUE(AnalyzeText("Zyntrafex XR").drugs.empty());
  EXPECT_TRUE(AnalyzeText("Zyntrafex, 20 mg daily").drugs.empty());
  auto a = AnalyzeText("Zyntrafex 20 mg and Quorvilan XR 5 mg, walked 10 mg, Plendrox 2 tablets");
  std::vector<std::string> mentions;
  for (const DrugMention& m : a.drugs) mentions.push_back(m.mention + (m.phantom ? " phantom" : ""));
  EXPECT_EQ(mentions, (std::vector<std::string>{"Zyntrafex phantom", "Quorvilan phantom"}));
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

// ---------------------------------------------------------------- sig shapes (issue 10)

std::string DoseText(const DrugMention& m) { return m.dose ? m.dose->Text() : "(none)"; }

TEST(ExtractSigShapes, CountTimesStrengthAcrossTheName) {
  auto a = AnalyzeText("Take 2 tablets of acetaminophen 500 mg every 6 hours");
  ASSERT_EQ(Drugs(a), Strings{"acetaminophen"});
  EXPECT_EQ(DoseText(a.drugs[0]), "1000 mg");
  EXPECT_DOUBLE_EQ(PerDay(a.drugs[0]), 4);
  EXPECT_EQ(Route(a.drugs[0]), "oral");

  auto b = AnalyzeText("half a tablet of metoprolol tartrate 50 mg");
  ASSERT_EQ(Drugs(b), Strings{"metoprolol"});
  EXPECT_EQ(DoseText(b.drugs[0]), "25 mg");
  EXPECT_EQ(b.drugs[0].salt, "tartrate");

  EXPECT_EQ(DoseText(AnalyzeText("Take 1/2 tab of metoprolol 50 mg daily").drugs.at(0)), "25 mg");
  EXPECT_EQ(DoseText(AnalyzeText("one and a half tablets of lorazepam 1 mg").drugs.at(0)), "1.5 mg");
  EXPECT_EQ(DoseText(AnalyzeText("metoprolol 50 mg, take 1/2 tab twice daily").drugs.at(0)), "25 mg");
}

TEST(ExtractSigShapes, RangesAndPuffs) {
  auto a = AnalyzeText("acetaminophen 500 mg, take 1\xE2\x80\x93" "2 tablets every 6 hours as needed");
  ASSERT_EQ(a.drugs.size(), 1u);
  const DrugMention& m = a.drugs[0];
  EXPECT_EQ(DoseText(m), "500-1000 mg");
  ASSERT_TRUE(m.dose && m.dose->low);
  EXPECT_DOUBLE_EQ(*m.dose->low, 500);
  EXPECT_DOUBLE_EQ(m.dose->value, 1000);
  EXPECT_TRUE(m.frequency.prn);

  auto b = AnalyzeText("2 puffs of albuterol 90 mcg/actuation q4h prn");
  ASSERT_EQ(b.drugs.size(), 1u);
  EXPECT_EQ(DoseText(b.drugs[0]), "180 mcg");
  std::vector<std::string> doses;
  for (const Dose& d : b.drugs[0].doses) doses.push_back(d.Text());
  EXPECT_EQ(doses, (Strings{"180 mcg", "90 mcg", "2 puff"}));  // the count stays comparable with "2 puffs"
  EXPECT_EQ(Route(b.drugs[0]), "inhaled");
}

TEST(ExtractSigShapes, HeldOutCyanocobalaminMonthly) {
  auto a = AnalyzeText("cyanocobalamin 1000 mcg IM monthly");
  ASSERT_EQ(a.drugs.size(), 1u);
  const DrugMention& m = a.drugs[0];
  EXPECT_EQ(m.drug, "cyanocobalamin");
  EXPECT_EQ(m.rxcui, "11248");
  EXPECT_EQ(DoseText(m), "1000 mcg");
  EXPECT_DOUBLE_EQ(PerDay(m), 1.0 / 30.0);
  EXPECT_EQ(Route(m), "intramuscular");
}

TEST(ExtractSigShapes, SpellingAndGluedSigWords) {
  auto a = AnalyzeText("Tkae 1 talbet of ibuprofen 200mg 3 tiems every day for 10 wekes");
  ASSERT_EQ(Drugs(a), Strings{"ibuprofen"});
  EXPECT_EQ(DoseText(a.drugs[0]), "200 mg");
  EXPECT_DOUBLE_EQ(PerDay(a.drugs[0]), 3);
  EXPECT_EQ(a.drugs[0].frequency.text, "3 tiems every day");  // the text as written
  auto b = AnalyzeText("ondansetron 4 mg 1 tabs po tidprnas needed for nausea");
  ASSERT_EQ(Drugs(b), Strings{"ondansetron"});
  EXPECT_DOUBLE_EQ(PerDay(b.drugs[0]), 3);
  EXPECT_TRUE(b.drugs[0].frequency.prn);
  // offsets stay those of the original text
  auto c = AnalyzeText("amoxicillin 500 mg T.I.D x 7 days");
  ASSERT_EQ(c.drugs.size(), 1u);
  EXPECT_DOUBLE_EQ(PerDay(c.drugs[0]), 3);
  EXPECT_EQ(c.drugs[0].frequency.text, "T.I.D");
  EXPECT_EQ(c.drugs[0].char_end, 11u);
}

// Repairs rewrite the tokens from the first repaired one on: the tokens before it, and the
// sentence arrays, must read as if the repaired text had been tokenized.
// A word RepairWord would split or respell is left whole when it names a drug ("bidil" is no
// "bid il", "podofilox" no "po dofilox"); words it leaves alone are not looked up as names.
TEST(ExtractSigShapes, DrugNamesAreNotRepaired) {
  auto a = AnalyzeText("take bidil 20 mg tidal and podofilox qdaily, ibuprofen bidaily");
  Strings norms;
  for (const Token& t : a.text.tokens) norms.emplace_back(t.norm);
  EXPECT_EQ(norms, (Strings{"take", "bidil", "20", "mg", "tidal", "and", "podofilox", "daily", ",", "ibuprofen", "bi",
                            "daily"}));
}

TEST(ExtractSigShapes, RepairedTokensAndSentences) {
  auto norms = [](const AnalyzedText& a) {
    Strings out;
    for (const Token& t : a.text.tokens) out.emplace_back(t.norm);
    return out;
  };
  using U = std::vector<uint32_t>;
  // numerals repeated as words dropped, in place, after an untouched first sentence
  auto a = AnalyzeText("Lisinopril 10 mg daily.\nTake 1 one tablet every 6 six hours.");
  EXPECT_EQ(norms(a), (Strings{"lisinopril", "10", "mg", "daily", ".", "take", "1", "tablet", "every", "6", "hours", "."}));
  EXPECT_EQ(a.text.sentence_of, (U{0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1}));
  EXPECT_EQ(a.text.sentence_begin, (U{0, 5}));
  EXPECT_EQ(a.text.sentence_end, (U{5, 12}));
  EXPECT_EQ(a.text.tokens[7].raw(), "tablet");
  // a glued word split: the tokens grow
  auto b = AnalyzeText("Lisinopril 10 mg daily.\nondansetron 4 mg tidprnas nausea.");
  EXPECT_EQ(norms(b), (Strings{"lisinopril", "10", "mg", "daily", ".", "ondansetron", "4", "mg", "tid", "prn", "as",
                               "nausea", "."}));
  EXPECT_EQ(b.text.sentence_of, (U{0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1}));
  EXPECT_EQ(b.text.sentence_begin, (U{0, 5}));
  EXPECT_EQ(b.text.sentence_end, (U{5, 13}));
  EXPECT_EQ(b.text.tokens[9].raw(), "prn");
  EXPECT_EQ(b.text.tokens[9].char_begin, 44u);
  // two splits, a dropped numeral and a join, across two sentences
  auto c = AnalyzeText("Take 2 two tabs bidx then tidprnas.\nAmoxicillin 500 mg T.I.D x 7 days.");
  EXPECT_EQ(norms(c), (Strings{"take", "2", "tabs", "bid", "x", "then", "tid", "prn", "as", ".", "amoxicillin", "500",
                               "mg", "tid", "x", "7", "days", "."}));
  EXPECT_EQ(c.text.sentence_of, (U{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1}));
  EXPECT_EQ(c.text.sentence_begin, (U{0, 10}));
  EXPECT_EQ(c.text.sentence_end, (U{10, 18}));
  EXPECT_EQ(c.text.tokens[4].char_begin, 19u);  // the "x" of "bidx"
  EXPECT_EQ(c.text.tokens[7].char_begin, 29u);  // the "prn" of "tidprnas"
  EXPECT_EQ(c.text.tokens[13].raw(), "T.I.D");
  EXPECT_EQ(c.text.tokens[13].char_begin, 55u);
  // a split at the first token and at the first token of a later sentence, and a join there
  auto d = AnalyzeText("tidprnas for nausea.\nbidx with food.\nT.I.D after meals.");
  EXPECT_EQ(norms(d), (Strings{"tid", "prn", "as", "for", "nausea", ".", "bid", "x", "with", "food", ".", "tid", "after",
                               "meals", "."}));
  EXPECT_EQ(d.text.sentence_of, (U{0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 2}));
  EXPECT_EQ(d.text.sentence_begin, (U{0, 6, 11}));
  EXPECT_EQ(d.text.sentence_end, (U{6, 11, 15}));
  EXPECT_EQ(d.text.tokens[7].char_begin, 24u);  // the "x" of "bidx"
  EXPECT_TRUE(d.text.tokens[6].line_start);
  EXPECT_FALSE(d.text.tokens[7].line_start);
}

TEST(ExtractSigShapes, WholeSigWithoutADrug) {
  Sig s = ReadWholeSig("take 1/2 to 1 one-half to one tablet by mouth once daily as needed");
  ASSERT_TRUE(s.dose);
  EXPECT_EQ(s.dose->Text(), "0.5-1 tablet");
  ASSERT_TRUE(s.frequency.per_day);
  EXPECT_DOUBLE_EQ(*s.frequency.per_day, 1);
  EXPECT_TRUE(s.frequency.prn);
  EXPECT_EQ(s.route, "oral");
  Sig glued = ReadWholeSig("1 caps po bidx10 days");
  ASSERT_TRUE(glued.frequency.per_day);
  EXPECT_DOUBLE_EQ(*glued.frequency.per_day, 2);
  Sig repeated = ReadWholeSig("take 3 mls by nebulization every 4 four hours as needed");
  ASSERT_TRUE(repeated.frequency.per_day);
  EXPECT_DOUBLE_EQ(*repeated.frequency.per_day, 6);
  EXPECT_EQ(repeated.route, "inhaled");
  EXPECT_FALSE(ReadWholeSig("use as directed").dose);
}

// ---------------------------------------------------------------- abbreviations

TEST(ExtractAbbreviations, SigAbbreviationIsNotADrug) {
  auto a = AnalyzeText("tiotropium 18 mcg inh daily");
  ASSERT_EQ(Drugs(a), Strings{"tiotropium"});  // "inh" is not isoniazid
  EXPECT_EQ(DoseText(a.drugs[0]), "18 mcg");
  EXPECT_DOUBLE_EQ(PerDay(a.drugs[0]), 1);      // nor does it take tiotropium's frequency
  EXPECT_EQ(Route(a.drugs[0]), "inhaled");
  // in capitals after a dose it is still the route
  EXPECT_EQ(Drugs(AnalyzeText("Tiotropium 18 mcg INH daily")), Strings{"tiotropium"});
  // in capitals where a drug name stands, INH is isoniazid
  auto b = AnalyzeText("Continue INH 300 mg daily with pyridoxine.");
  ASSERT_EQ(Drugs(b), (Strings{"isoniazid", "pyridoxine"}));
  EXPECT_DOUBLE_EQ(DoseValue(b.drugs[0]), 300);
}

TEST(ExtractAbbreviations, ClassNamesInAnAllergyContext) {
  auto a = AnalyzeText("PCN-class allergy (hives).");
  ASSERT_EQ(a.drugs.size(), 1u);
  const DrugMention& m = a.drugs[0];
  EXPECT_EQ(m.mention, "PCN-class");
  EXPECT_EQ(m.drug, "penicillins");
  EXPECT_EQ(m.drug_class, "penicillins");
  EXPECT_EQ(m.key, "class:penicillins");
  EXPECT_EQ(m.rxcui, "");
  EXPECT_TRUE(m.in_allergy_context);

  auto b = AnalyzeText("Allergic to penicillins, sulfa drugs and NSAIDs.");
  EXPECT_EQ(Drugs(b), (Strings{"penicillins", "sulfonamide antibiotics", "NSAIDs"}));
  for (const DrugMention& d : b.drugs) EXPECT_TRUE(d.in_allergy_context) << d.mention;
}

TEST(ExtractAbbreviations, ClassNamesElsewhereAreNotMentions) {
  EXPECT_TRUE(AnalyzeText("Avoid NSAIDs. NSAID interaction risk with warfarin noted.").drugs.size() == 1u);
  EXPECT_EQ(Drugs(AnalyzeText("Avoid NSAIDs. NSAID interaction risk with warfarin noted.")), Strings{"warfarin"});
  // a class name written with a dose names the class's prescribed member
  auto a = AnalyzeText("penicillin 500 mg PO QID x 10 days");
  ASSERT_EQ(a.drugs.size(), 1u);
  EXPECT_EQ(a.drugs[0].drug, "penicillin V");
  EXPECT_EQ(a.drugs[0].key, "7984");
  EXPECT_EQ(a.drugs[0].drug_class, "");
  // a class with no prescribed member is never a medication
  EXPECT_TRUE(AnalyzeText("cephalosporins 500 mg daily").drugs.empty());
}

// ---------------------------------------------------------------- equivalent ingredients

TEST(ExtractEquivalents, SaltsAndVitaminsShareAKey) {
  auto a = AnalyzeText("lithium carbonate 300 mg; lithium 300 mg; Lithobid 300 mg; lithium citrate 8 mEq");
  ASSERT_EQ(a.drugs.size(), 4u);
  for (const DrugMention& m : a.drugs) {
    EXPECT_EQ(m.key, "6448") << m.mention;
    EXPECT_EQ(m.drug, "lithium") << m.mention;
  }
  EXPECT_EQ(a.drugs[0].rxcui, "42351");  // the RxCUI as matched
  EXPECT_EQ(a.drugs[0].salt, "carbonate");
  EXPECT_EQ(a.drugs[1].salt, "");
  auto b = AnalyzeText("vitamin B12 1000 mcg; cyanocobalamin 1000 mcg; B12 1000 mcg");
  ASSERT_EQ(b.drugs.size(), 3u);
  for (const DrugMention& m : b.drugs) {
    EXPECT_EQ(m.key, "11248") << m.mention;
    EXPECT_EQ(m.drug, "cyanocobalamin") << m.mention;
  }
  auto c = AnalyzeText("vitamin B6 50 mg; pyridoxine 50 mg");
  ASSERT_EQ(c.drugs.size(), 2u);
  EXPECT_EQ(c.drugs[0].key, c.drugs[1].key);
  EXPECT_EQ(c.drugs[0].drug, "pyridoxine");
}

TEST(ExtractEquivalents, MetoprololSaltsAreOneIngredientWithTheSaltReported) {
  auto a = AnalyzeText("metoprolol tartrate 25 mg BID; metoprolol succinate 50 mg daily; metoprolol 25 mg BID");
  ASSERT_EQ(a.drugs.size(), 3u);
  EXPECT_EQ(a.drugs[0].key, "6918");
  EXPECT_EQ(a.drugs[1].key, "6918");
  EXPECT_EQ(a.drugs[2].key, "6918");
  EXPECT_EQ(a.drugs[0].salt, "tartrate");
  EXPECT_EQ(a.drugs[1].salt, "succinate");
  EXPECT_EQ(a.drugs[2].salt, "");
}

// ---------------------------------------------------------------- binding (issue 10)

TEST(ExtractBinding, ParentheticalAboutAnotherDrugDoesNotTakeTheVerb) {
  auto a = AnalyzeText("Start doxycycline 100 mg PO BID for 7 days (amoxicillin allergy).");
  ASSERT_EQ(Drugs(a), (Strings{"doxycycline", "amoxicillin"}));
  EXPECT_EQ(Action(a.drugs[0]), "start");
  EXPECT_EQ(DoseText(a.drugs[0]), "100 mg");
  EXPECT_FALSE(a.drugs[0].in_allergy_context);
  EXPECT_EQ(Action(a.drugs[1]), "(none)");
  EXPECT_TRUE(a.drugs[1].in_allergy_context);
  EXPECT_TRUE(a.drugs[1].in_parenthetical);
  EXPECT_EQ(DoseText(a.drugs[1]), "(none)");
  // nor does a list into an allergy context
  auto b = AnalyzeText("Start doxycycline 100 mg PO BID, amoxicillin allergy.");
  EXPECT_EQ(Action(b.drugs.at(1)), "(none)");
  EXPECT_TRUE(b.drugs.at(1).in_allergy_context);
}

TEST(ExtractBinding, CoordinatedDrugsShareATrailingAction) {
  auto a = AnalyzeText("carvedilol 12.5 mg BID and lisinopril 10 mg daily continued");
  ASSERT_EQ(Drugs(a), (Strings{"carvedilol", "lisinopril"}));
  EXPECT_EQ(Action(a.drugs[0]), "continue");
  EXPECT_EQ(Action(a.drugs[1]), "continue");
  EXPECT_DOUBLE_EQ(PerDay(a.drugs[0]), 2);
  EXPECT_DOUBLE_EQ(PerDay(a.drugs[1]), 1);
  auto b = AnalyzeText("Metformin, glipizide and lisinopril were stopped.");
  for (const DrugMention& m : b.drugs) EXPECT_EQ(Action(m), "stop") << m.mention;
  // a singular verb makes it the last drug's alone
  auto c = AnalyzeText("carvedilol 12.5 mg BID and lisinopril 10 mg daily was stopped");
  EXPECT_EQ(Action(c.drugs.at(0)), "(none)");
  EXPECT_EQ(Action(c.drugs.at(1)), "stop");
  // a drug with its own action keeps it
  auto d = AnalyzeText("Start bupropion 150 mg daily and sertraline 50 mg daily continued");
  EXPECT_EQ(Action(d.drugs.at(0)), "start");
  EXPECT_EQ(Action(d.drugs.at(1)), "continue");
  // not across a sentence or clause
  auto e = AnalyzeText("Carvedilol 12.5 mg BID. Lisinopril 10 mg daily continued.");
  EXPECT_EQ(Action(e.drugs.at(0)), "(none)");
}

TEST(ExtractBinding, ListSharesItsLeadingVerbOnlyAcrossCoordination) {
  auto a = AnalyzeText("Continue metformin 500 mg BID, lisinopril 10 mg daily.");
  EXPECT_EQ(Action(a.drugs.at(1)), "continue");
  auto b = AnalyzeText("Started lisinopril (ACE inhibitor) and metformin");
  EXPECT_EQ(Action(b.drugs.at(1)), "start");
}

TEST(ExtractBinding, GlossSharesTheReadingOfTheNameItGlosses) {
  auto a = AnalyzeText("- Ibuprofen (Advil) 400 mg PO TID, STOPPED (NSAID interaction)");
  ASSERT_EQ(a.drugs.size(), 2u);
  for (const DrugMention& m : a.drugs) {
    EXPECT_EQ(m.drug, "ibuprofen");
    EXPECT_EQ(DoseText(m), "400 mg") << m.mention;
    EXPECT_DOUBLE_EQ(PerDay(m), 3) << m.mention;
    EXPECT_EQ(Action(m), "stop") << m.mention;
  }
  EXPECT_FALSE(a.drugs[0].gloss);
  EXPECT_TRUE(a.drugs[1].gloss);
  EXPECT_TRUE(a.drugs[1].in_parenthetical);
}

TEST(ExtractBinding, AllergyContext) {
  auto a = AnalyzeText("Allergies: penicillin (hives), codeine - nausea.\nPlan: start azithromycin 500 mg daily.");
  ASSERT_EQ(Drugs(a), (Strings{"penicillins", "codeine", "azithromycin"}));
  EXPECT_TRUE(a.drugs[0].in_allergy_context);
  EXPECT_TRUE(a.drugs[1].in_allergy_context);
  EXPECT_FALSE(a.drugs[2].in_allergy_context);
  auto b = AnalyzeText("ALLERGIES\nSulfa drugs (hives after Bactrim).\n\nMEDICATIONS\n- lisinopril 10 mg daily");
  ASSERT_EQ(b.drugs.size(), 3u);
  EXPECT_TRUE(b.drugs[0].in_allergy_context);
  EXPECT_TRUE(b.drugs[1].in_allergy_context);  // Bactrim
  EXPECT_FALSE(b.drugs[2].in_allergy_context);
  // only list words between the cue and the drug
  auto c = AnalyzeText("She is allergic to penicillin and takes lisinopril 10 mg daily.");
  EXPECT_TRUE(c.drugs.at(0).in_allergy_context);
  EXPECT_FALSE(c.drugs.at(1).in_allergy_context);
  auto d = AnalyzeText("Sulfasalazine avoided because of the sulfa allergy.");
  EXPECT_FALSE(d.drugs.at(0).in_allergy_context);
  EXPECT_TRUE(d.drugs.at(1).in_allergy_context);
  EXPECT_TRUE(AnalyzeText("amoxicillin (allergy: rash)").drugs.at(0).in_allergy_context);
  EXPECT_TRUE(AnalyzeText("Denies penicillin allergy.").drugs.at(0).in_allergy_context);
}

TEST(ExtractBinding, MedicationListLines) {
  auto a = AnalyzeText("- clonazepam 0.5 mg twice daily as needed");
  ASSERT_EQ(a.drugs.size(), 1u);
  EXPECT_TRUE(a.drugs[0].on_med_list);
  EXPECT_EQ(Action(a.drugs[0]), "(none)");
  EXPECT_TRUE(AnalyzeText("2) metformin 500 mg PO BID with meals").drugs.at(0).on_med_list);
  EXPECT_TRUE(AnalyzeText("* sertraline 50 mg daily for depression").drugs.at(0).on_med_list);
  // a list item that says more than the sig is not, by itself, a medication-list line
  EXPECT_FALSE(AnalyzeText("- Stopped lisinopril because of cough").drugs.at(0).on_med_list);
  EXPECT_FALSE(AnalyzeText("- clonazepam and sertraline daily").drugs.at(0).on_med_list);
  EXPECT_FALSE(AnalyzeText("clonazepam 0.5 mg twice daily as needed").drugs.at(0).on_med_list);  // no list marker

  auto b = AnalyzeText(
      "Medications:\n- lisinopril 20 mg daily, stopped today\n- amlodipine 5 mg daily\n\n"
      "Plan:\n- start losartan 50 mg daily\nCurrent meds: metformin 500 mg BID");
  ASSERT_EQ(Drugs(b), (Strings{"lisinopril", "amlodipine", "losartan", "metformin"}));
  EXPECT_TRUE(b.drugs[0].on_med_list);  // under the heading; its own action still says stopped
  EXPECT_EQ(Action(b.drugs[0]), "stop");
  EXPECT_TRUE(b.drugs[1].on_med_list);
  EXPECT_FALSE(b.drugs[2].on_med_list);
  EXPECT_TRUE(b.drugs[3].on_med_list);  // "Current meds: …" on the heading's line

  // a heading written as a list item covers the lines indented below it
  auto c = AnalyzeText("- Meds:\n  - albuterol HFA 2 puffs q4-6h prn, continue\n  - montelukast 10 mg qhs, start\n"
                       "- Counseled on montelukast side effects");
  ASSERT_EQ(c.drugs.size(), 3u);
  EXPECT_TRUE(c.drugs[0].on_med_list);
  EXPECT_TRUE(c.drugs[1].on_med_list);
  EXPECT_FALSE(c.drugs[2].on_med_list);

  // lists of medicines not taken are not medication lists
  auto d = AnalyzeText("Discontinued medications:\n- lisinopril 20 mg daily\n\nAllergies:\n- penicillin");
  EXPECT_FALSE(d.drugs.at(0).on_med_list);
  EXPECT_FALSE(d.drugs.at(1).on_med_list);
}

// ---------------------------------------------------------------- extract_drugs

// A mention list as a failure message shows it.
std::string Describe(const std::vector<DrugMention>& drugs) {
  std::string out;
  for (const DrugMention& m : drugs)
    out += m.mention + "@" + std::to_string(m.char_begin) + " " + m.key + " " + (m.dose ? m.dose->Text() : "-") +
           " " + m.frequency.text + " " + Route(m) + " " + Action(m) + " assertion " +
           std::to_string(static_cast<int>(m.assertion)) + (m.in_allergy_context ? " allergy" : "") +
           (m.on_med_list ? " list" : "") + "\n";
  return out;
}

// ExtractDrugs reads assertion scopes only in the sentences that hold a mention; every other
// reading of a mention stays within its sentence, so its drugs are AnalyzeText's, field for
// field, over every text of the fixtures (notes, claims, sigs, audio transcripts…).
TEST(ExtractDrugs, ReadsWhatAnalyzeTextReadsOverEveryFixtureText) {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::recursive_directory_iterator("tests/fixtures"))
    if (e.is_regular_file() && e.path().extension() == ".txt") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 200u);
  size_t drugs = 0, not_affirmed = 0;
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::vector<DrugMention> all = AnalyzeText(text).drugs;
    const std::vector<DrugMention> extracted = ExtractDrugs(text);
    ASSERT_TRUE(extracted == all) << f << "\n" << Describe(extracted) << "against\n" << Describe(all);
    drugs += all.size();
    not_affirmed += static_cast<size_t>(std::count_if(all.begin(), all.end(), [](const DrugMention& m) {
      return m.assertion != Assertion::kAffirmed;
    }));
  }
  EXPECT_GT(drugs, 1000u);
  EXPECT_GT(not_affirmed, 20u);
}

TEST(ExtractDrugs, AMentionKeepsTheScopesOfItsOwnSentenceOnly) {
  const std::string text =
      "No chest pain or shortness of breath. Denies taking ibuprofen 400 mg; lisinopril 10 mg daily was "
      "stopped. Mother had a stroke. If the cough persists, start losartan 25 mg daily. Sertraline 50 mg daily.";
  const std::vector<DrugMention> drugs = ExtractDrugs(text);
  ASSERT_EQ(drugs.size(), 4u);
  EXPECT_EQ(drugs[0].drug, "ibuprofen");
  EXPECT_EQ(drugs[0].assertion, Assertion::kNegated);
  EXPECT_EQ(drugs[1].drug, "lisinopril");
  EXPECT_EQ(drugs[1].action, std::optional<std::string>("stop"));
  EXPECT_EQ(drugs[2].drug, "losartan");
  EXPECT_EQ(drugs[2].assertion, Assertion::kHypothetical);
  EXPECT_EQ(drugs[3].drug, "sertraline");
  EXPECT_EQ(drugs[3].assertion, Assertion::kAffirmed);
  EXPECT_TRUE(drugs == AnalyzeText(text).drugs) << Describe(drugs);
}

}  // namespace
}  // namespace scribe
