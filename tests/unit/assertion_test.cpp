// Unit tests for assertion.h: ConText scopes with the triggers of corpus/rules/assertion.yaml
// (docs/methodology.md §1 "Assertion", "Sentences and clauses").
#include <gtest/gtest.h>

#include <ctime>
#include <string>
#include <vector>

#include "assertion.h"
#include "rules.h"
#include "text.h"

namespace scribe {
namespace {

struct Analysed {
  std::string text;
  TokenizedText tt;
  std::vector<uint8_t> bits;
  std::vector<uint32_t> clauses;
};

Analysed RunText(const std::string& text) {
  Analysed a;
  a.text = text;
  a.tt = Analyze(a.text, DefaultRules().assertion.abbreviations);
  a.bits = DefaultAssertionAnalyzer().Analyze(a.tt, &a.clauses);
  return a;
}

// The token range of the `occurrence`-th match (0-based) of `phrase` (compared by token norms),
// or {npos, npos}.
std::pair<size_t, size_t> Find(const Analysed& a, const std::string& phrase, int occurrence) {
  std::vector<std::string> words = PhraseWords(phrase);
  const auto& toks = a.tt.tokens;
  for (size_t k = 0; k + words.size() <= toks.size(); ++k) {
    bool ok = true;
    for (size_t w = 0; w < words.size() && ok; ++w) ok = toks[k + w].norm == words[w];
    if (ok && occurrence-- == 0) return {k, k + words.size()};
  }
  return {std::string::npos, std::string::npos};
}

// The assertion of the `occurrence`-th match (0-based) of `phrase`.
std::string Of(const std::string& text, const std::string& phrase, int occurrence = 0) {
  Analysed a = RunText(text);
  auto [b, e] = Find(a, phrase, occurrence);
  if (b == std::string::npos) return "(phrase not found)";
  return std::string(AssertionName(AssertionAnalyzer::Resolve(a.bits, b, e)));
}

// "assertion / cue as written" for the `occurrence`-th match of `phrase` ("negated / denies").
std::string Why(const std::string& text, const std::string& phrase, int occurrence = 0) {
  Analysed a = RunText(text);
  std::vector<AssertionCue> cues;
  std::vector<uint8_t> bits = DefaultAssertionAnalyzer().Analyze(a.tt, nullptr, &cues);
  EXPECT_EQ(bits, a.bits);  // asking for cues never changes the bits
  auto [b, e] = Find(a, phrase, occurrence);
  if (b == std::string::npos) return "(phrase not found)";
  AssertionCue cue = AssertionAnalyzer::DecidingCue(bits, cues, b, e);
  return std::string(AssertionName(AssertionAnalyzer::Resolve(bits, b, e))) + " / " +
         std::string(AssertionAnalyzer::CueText(a.tt, cue));
}

// ---------------------------------------------------------------- affirmed / negated

// A sentence without a trigger is only numbered into clauses; its neighbours are analysed as usual.
TEST(Assertion, SentencesWithoutTriggersNumberTheirClauses) {
  TokenizedText tt = Analyze("Sertraline 50 mg daily; lisinopril 10 mg. No rash; fever.", DefaultRules().assertion.abbreviations);
  std::vector<uint32_t> clauses;
  std::vector<AssertionCue> cues;
  std::vector<uint8_t> bits = DefaultAssertionAnalyzer().Analyze(tt, &clauses, &cues);
  EXPECT_EQ(clauses, (std::vector<uint32_t>{1, 1, 1, 1, 2, 2, 2, 2, 2, 3, 3, 4, 4, 4}));
  EXPECT_EQ(bits, (std::vector<uint8_t>{0, 0, 0, 0, 0, 0, 0, 0, 0, kBitTrigger, kBitNegated, 0, 0, 0}));
  std::vector<AssertionCue> expected(14);
  expected[10] = AssertionCue{9, 10};
  EXPECT_EQ(cues, expected);
}

// Only the sentences asked for are read (extract_drugs reads those with a drug in them): they get
// the bits and cues of a full reading, and clauses numbered apart; the others nothing, clause 0.
TEST(Assertion, OnlyTheSentencesAskedForAreRead) {
  TokenizedText tt = Analyze("Sertraline 50 mg daily; lisinopril 10 mg. No rash; fever.", DefaultRules().assertion.abbreviations);
  ASSERT_EQ(tt.sentence_begin.size(), 2u);
  std::vector<uint32_t> clauses;
  std::vector<AssertionCue> cues;
  const std::vector<uint8_t> second_only = {0, 1};
  std::vector<uint8_t> bits = DefaultAssertionAnalyzer().Analyze(tt, &clauses, &cues, &second_only);
  EXPECT_EQ(clauses, (std::vector<uint32_t>{0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 2, 2, 2}));
  EXPECT_EQ(bits, (std::vector<uint8_t>{0, 0, 0, 0, 0, 0, 0, 0, 0, kBitTrigger, kBitNegated, 0, 0, 0}));
  std::vector<AssertionCue> expected(14);
  expected[10] = AssertionCue{9, 10};
  EXPECT_EQ(cues, expected);

  const std::vector<uint8_t> first_only = {1, 0};
  bits = DefaultAssertionAnalyzer().Analyze(tt, &clauses, &cues, &first_only);
  EXPECT_EQ(clauses, (std::vector<uint32_t>{1, 1, 1, 1, 2, 2, 2, 2, 2, 0, 0, 0, 0, 0}));
  EXPECT_EQ(bits, std::vector<uint8_t>(14, 0));
  EXPECT_EQ(cues, std::vector<AssertionCue>(14));
}

TEST(Assertion, PlainStatementIsAffirmed) {
  EXPECT_EQ(Of("Patient has chest pain.", "chest pain"), "affirmed");
  EXPECT_EQ(Of("", "x"), "(phrase not found)");
}

TEST(Assertion, NegationPreTriggers) {
  EXPECT_EQ(Of("Denies chest pain.", "chest pain"), "negated");
  EXPECT_EQ(Of("No fever.", "fever"), "negated");
  EXPECT_EQ(Of("Negative for fever.", "fever"), "negated");
  EXPECT_EQ(Of("She is not taking ibuprofen.", "ibuprofen"), "negated");
  EXPECT_EQ(Of("Never had a seizure.", "seizure"), "negated");
  EXPECT_EQ(Of("Denied fever.", "fever"), "negated");
  EXPECT_EQ(Of("No evidence of pneumonia.", "pneumonia"), "negated");
}

TEST(Assertion, NegationPostTriggers) {
  EXPECT_EQ(Of("Chest pain was denied.", "chest pain"), "negated");
  EXPECT_EQ(Of("Fever denied.", "fever"), "negated");
  EXPECT_EQ(Of("Fever, chills were denied.", "chills"), "negated");
  EXPECT_EQ(Of("Fever, chills were denied.", "fever"), "negated");
  EXPECT_EQ(Of("Headache resolved.", "headache"), "negated");
  EXPECT_EQ(Of("Cough has resolved.", "cough"), "negated");  // "has resolved": negated > historical
}

TEST(Assertion, NegationScopeEndsAtSentence) {
  EXPECT_EQ(Of("No fever. Cough.", "cough"), "affirmed");
  EXPECT_EQ(Of("No fever! Cough.", "cough"), "affirmed");
  EXPECT_EQ(Of("No fever\n\ncough", "cough"), "affirmed");
}

TEST(Assertion, PostTriggerScopeEndsAtSemicolon) {
  EXPECT_EQ(Of("Cough; fever was denied.", "cough"), "affirmed");
  EXPECT_EQ(Of("Cough; fever was denied.", "fever"), "negated");
}

TEST(Assertion, PreTriggerScopeEndsAtSemicolon) {
  EXPECT_EQ(Of("No fever; cough for three days.", "cough"), "affirmed");
}

TEST(Assertion, PseudoTriggersDoNotNegate) {
  EXPECT_EQ(Of("No change in sleep.", "sleep"), "affirmed");
  EXPECT_EQ(Of("No increase in pain.", "pain"), "affirmed");
  EXPECT_EQ(Of("Not only anxious, also tearful.", "anxious"), "affirmed");
  EXPECT_EQ(Of("Gram negative rods in urine.", "rods"), "affirmed");
  EXPECT_EQ(Of("No new rash.", "rash"), "affirmed");
  EXPECT_EQ(Of("Walks without difficulty with a cane.", "cane"), "affirmed");
}

TEST(Assertion, TerminatorsEndTheScope) {
  EXPECT_EQ(Of("Denies fever but reports cough.", "fever"), "negated");
  EXPECT_EQ(Of("Denies fever but reports cough.", "cough"), "affirmed");
  EXPECT_EQ(Of("No fever, reports cough.", "cough"), "affirmed");
  EXPECT_EQ(Of("No fever however has a cough.", "cough"), "affirmed");
  EXPECT_EQ(Of("No chest pain, endorses palpitations.", "palpitations"), "affirmed");
  EXPECT_EQ(Of("Denies fever, complains of cough.", "cough"), "affirmed");
}

TEST(Assertion, ListsShareTheTrigger) {
  EXPECT_EQ(Of("No SI/HI.", "SI"), "negated");
  EXPECT_EQ(Of("No SI/HI.", "HI"), "negated");
  EXPECT_EQ(Of("Denies SI or HI.", "HI"), "negated");
  EXPECT_EQ(Of("Denies fever, chills, and night sweats.", "night sweats"), "negated");
}

TEST(Assertion, WithoutNegatesWhatFollowsOnly) {
  EXPECT_EQ(Of("Passive SI without plan.", "SI"), "affirmed");
  EXPECT_EQ(Of("Passive SI without plan.", "plan"), "negated");
}

// ---------------------------------------------------------------- family

TEST(Assertion, FamilyPreTriggers) {
  EXPECT_EQ(Of("Mother has diabetes.", "diabetes"), "family");
  EXPECT_EQ(Of("Father had a stroke.", "stroke"), "family");
  EXPECT_EQ(Of("Family history of diabetes.", "diabetes"), "family");
  EXPECT_EQ(Of("FHx: breast cancer.", "breast cancer"), "family");
}

TEST(Assertion, FamilyPostTriggers) {
  EXPECT_EQ(Of("Diabetes runs in the family.", "diabetes"), "family");
  EXPECT_EQ(Of("Depression in her family.", "depression"), "family");
}

TEST(Assertion, ExperiencerTerminatorTurnsBackToThePatient) {
  EXPECT_EQ(Of("Mother has diabetes; patient has asthma.", "diabetes"), "family");
  EXPECT_EQ(Of("Mother has diabetes; patient has asthma.", "asthma"), "affirmed");
  // no ";" at all: the experiencer terminator alone ends the family scope
  EXPECT_EQ(Of("Mother has diabetes and the patient has asthma.", "asthma"), "affirmed");
  EXPECT_EQ(Of("Mother has diabetes and she has asthma.", "asthma"), "affirmed");
  EXPECT_EQ(Of("Mother has diabetes and the patient has asthma.", "diabetes"), "family");
}

TEST(Assertion, ExperiencerTerminatorDoesNotEndNegation) {
  // "patient" ends a family scope only; a negation carries on to the clause end
  EXPECT_EQ(Of("No history that patient has asthma.", "asthma"), "negated");
}

TEST(Assertion, FamilyBeatsNegation) {
  EXPECT_EQ(Of("Mother denies chest pain.", "chest pain"), "family");
}

TEST(Assertion, CollateralFromSpouseIsAboutThePatient) {
  EXPECT_EQ(Of("Per her husband she has insomnia.", "insomnia"), "affirmed");
}

// ---------------------------------------------------------------- hypothetical

TEST(Assertion, HypotheticalPreTriggers) {
  EXPECT_EQ(Of("Return if chest pain develops.", "chest pain"), "hypothetical");
  EXPECT_EQ(Of("Rule out bipolar disorder.", "bipolar disorder"), "hypothetical");
  EXPECT_EQ(Of("r/o MI.", "MI"), "hypothetical");
  EXPECT_EQ(Of("Possible pneumonia.", "pneumonia"), "hypothetical");
  EXPECT_EQ(Of("Should she develop a rash, stop the drug.", "rash"), "hypothetical");
  EXPECT_EQ(Of("If pain persists, start gabapentin.", "gabapentin"), "hypothetical");
}

TEST(Assertion, HypotheticalPostTriggers) {
  EXPECT_EQ(Of("Bipolar disorder was considered.", "bipolar disorder"), "hypothetical");
  EXPECT_EQ(Of("ADHD evaluation is pending.", "ADHD"), "hypothetical");
}

TEST(Assertion, NegationBeatsHypothetical) {
  EXPECT_EQ(Of("Return if no improvement in pain.", "improvement"), "negated");
}

// ---------------------------------------------------------------- historical

TEST(Assertion, HistoricalTriggers) {
  EXPECT_EQ(Of("History of asthma.", "asthma"), "historical");
  EXPECT_EQ(Of("h/o asthma.", "asthma"), "historical");
  EXPECT_EQ(Of("Hx of MI.", "MI"), "historical");
  EXPECT_EQ(Of("Previously on sertraline.", "sertraline"), "historical");
  EXPECT_EQ(Of("Asthma as a child.", "asthma"), "historical");
  EXPECT_EQ(Of("Status post appendectomy.", "appendectomy"), "historical");
  EXPECT_EQ(Of("No longer on amlodipine.", "amlodipine"), "historical");  // pseudo for negation
}

TEST(Assertion, NegationBeatsHistorical) {
  EXPECT_EQ(Of("No history of asthma.", "asthma"), "negated");
}

TEST(Assertion, HistoricalBeatsNothingElse) {
  EXPECT_EQ(Of("History of asthma. Wheezing today.", "wheezing"), "affirmed");
}

// ---------------------------------------------------------------- bits, Resolve, Clauses

TEST(Assertion, TriggerTokensAreMarked) {
  Analysed a = RunText("Denies chest pain.");
  ASSERT_EQ(a.bits.size(), 4u);
  EXPECT_TRUE(a.bits[0] & kBitTrigger);
  EXPECT_FALSE(a.bits[0] & kBitNegated);  // a trigger does not negate itself
  EXPECT_TRUE(a.bits[1] & kBitNegated);
  EXPECT_TRUE(a.bits[2] & kBitNegated);
  EXPECT_FALSE(a.bits[1] & kBitTrigger);
}

TEST(Assertion, ResolvePriority) {
  std::vector<uint8_t> bits = {0, kBitHistorical, kBitHypothetical | kBitHistorical, kBitNegated | kBitHypothetical,
                               kBitFamily | kBitNegated};
  EXPECT_EQ(AssertionAnalyzer::Resolve(bits, 0, 1), Assertion::kAffirmed);
  EXPECT_EQ(AssertionAnalyzer::Resolve(bits, 0, 2), Assertion::kHistorical);
  EXPECT_EQ(AssertionAnalyzer::Resolve(bits, 0, 3), Assertion::kHypothetical);
  EXPECT_EQ(AssertionAnalyzer::Resolve(bits, 0, 4), Assertion::kNegated);
  EXPECT_EQ(AssertionAnalyzer::Resolve(bits, 0, 5), Assertion::kFamily);
  EXPECT_EQ(AssertionAnalyzer::Resolve(bits, 3, 3), Assertion::kAffirmed);   // empty range
  EXPECT_EQ(AssertionAnalyzer::Resolve(bits, 4, 99), Assertion::kFamily);   // clipped to the bits
  EXPECT_EQ(AssertionAnalyzer::Resolve(bits, 10, 20), Assertion::kAffirmed);
  // the trigger bit alone does not change the assertion
  EXPECT_EQ(AssertionAnalyzer::Resolve({kBitTrigger}, 0, 1), Assertion::kAffirmed);
}

TEST(Assertion, Names) {
  EXPECT_EQ(AssertionName(Assertion::kAffirmed), "affirmed");
  EXPECT_EQ(AssertionName(Assertion::kNegated), "negated");
  EXPECT_EQ(AssertionName(Assertion::kHistorical), "historical");
  EXPECT_EQ(AssertionName(Assertion::kHypothetical), "hypothetical");
  EXPECT_EQ(AssertionName(Assertion::kFamily), "family");
}

TEST(ClauseSplit, TerminatorsAndSemicolonsStartClauses) {
  Analysed a = RunText("Denies fever but reports cough.");
  // Denies fever | but | reports cough .
  EXPECT_EQ(a.clauses, (std::vector<uint32_t>{1, 1, 2, 3, 3, 3}));
  Analysed b = RunText("No fever. Cough; rash.");
  // No fever . | Cough | ; rash .
  EXPECT_EQ(b.clauses, (std::vector<uint32_t>{1, 1, 1, 2, 3, 3, 3}));
}

TEST(ClauseSplit, EmptyText) {
  Analysed a = RunText("");
  EXPECT_TRUE(a.clauses.empty());
  EXPECT_TRUE(a.bits.empty());
}

TEST(ClauseSplit, ClausesAreOptional) {
  TokenizedText tt = Analyze("Denies fever but reports cough.", DefaultRules().assertion.abbreviations);
  // the bits do not depend on whether clause numbers are asked for
  std::vector<uint32_t> clauses;
  EXPECT_EQ(DefaultAssertionAnalyzer().Analyze(tt), DefaultAssertionAnalyzer().Analyze(tt, &clauses));
  EXPECT_EQ(clauses.size(), tt.tokens.size());
}

// A colon does not end a clause, so a post-trigger after a heading colon reaches back over it:
// "SI: denies" negates SI (assertion.yaml lists "denies" as a post-trigger for exactly this).
TEST(ClauseSplit, ColonDoesNotEndAClause) {
  Analysed a = RunText("Plan: start sertraline");
  EXPECT_EQ(a.clauses, (std::vector<uint32_t>{1, 1, 1, 1}));
  EXPECT_EQ(Of("SI: denies.", "SI"), "negated");
  EXPECT_EQ(Of("Fever: denied.", "fever"), "negated");
  EXPECT_EQ(Of("Chest pain: none.", "chest pain"), "negated");
}

// ---------------------------------------------------------------- section headings (issue 10)

TEST(Assertion, MidSentenceHeadingEndsEveryScope) {
  // line breaks lost: the denial is the value of the heading before
  const std::string t = "COMPLICATIONS: None POSTOPERATIVE DIAGNOSIS: 1) Acute appendicitis.";
  EXPECT_EQ(Of(t, "complications"), "negated");
  EXPECT_EQ(Of(t, "acute appendicitis"), "affirmed");
  EXPECT_EQ(Of("COMPLICATIONS: NONE POSTOPERATIVE DIAGNOSIS: cholecystitis", "cholecystitis"), "affirmed");
  EXPECT_EQ(Of("Complications: None Postoperative Diagnosis: cholecystitis", "cholecystitis"), "affirmed");
  EXPECT_EQ(Of("ALLERGIES: NKDA MEDICATIONS: lisinopril 10 mg daily", "lisinopril"), "affirmed");
  EXPECT_EQ(Of("Allergies: no known allergies Medications: lisinopril", "lisinopril"), "affirmed");
  EXPECT_EQ(Of("FAMILY HISTORY: mother with diabetes SOCIAL HISTORY: smokes daily", "smokes"), "affirmed");
  EXPECT_EQ(Of("Hx of asthma PLAN: inhaler", "inhaler"), "affirmed");
  // a post-trigger does not reach back over a heading either
  EXPECT_EQ(Of("Sore throat ASSESSMENT: fever denied", "sore throat"), "affirmed");
  EXPECT_EQ(Of("Sore throat ASSESSMENT: fever denied", "fever"), "negated");
}

TEST(Assertion, NotEveryColonIsAHeading) {
  EXPECT_EQ(Of("Denies SI: no plan.", "SI"), "negated");          // short capitals: the denied finding
  EXPECT_EQ(Of("No Fever: for two days", "fever"), "negated");  // the object of a forward trigger
  EXPECT_EQ(Of("Chest pain: none.", "chest pain"), "negated");    // a heading at the sentence start
  EXPECT_EQ(Of("No fever at 10:30 today", "today"), "negated");
}

// ---------------------------------------------------------------- allergy denials (issue 10)

TEST(Assertion, AllergyDenialsNegate) {
  EXPECT_EQ(Of("No known drug allergies.", "drug allergies"), "negated");
  EXPECT_EQ(Of("He has no known allergies.", "allergies"), "negated");
  EXPECT_EQ(Of("No drug allergies.", "drug allergies"), "negated");
  EXPECT_EQ(Of("Denies drug allergies.", "drug allergies"), "negated");
  EXPECT_EQ(Of("Allergies: none.", "allergies"), "negated");
  EXPECT_EQ(Of("NKDA.", "NKDA"), "negated");
  EXPECT_EQ(Of("Allergies: NKA", "NKA"), "negated");
  // a denial word negates itself only
  EXPECT_EQ(Of("NKDA, takes lisinopril daily.", "lisinopril"), "affirmed");
  EXPECT_EQ(Why("NKDA.", "NKDA"), "negated / NKDA");
}

// ---------------------------------------------------------------- post-negation, "-ve" (issue 10)

TEST(Assertion, NegativeWrittenAfterTheFinding) {
  EXPECT_EQ(Of("Strep test -ve.", "strep test"), "negated");
  EXPECT_EQ(Of("COVID swab negative.", "covid swab"), "negated");
  EXPECT_EQ(Of("Urine dip -ve for blood and nitrites.", "nitrites"), "negated");
  EXPECT_EQ(Of("Urine dip -ve for blood and nitrites.", "urine dip"), "affirmed");
  EXPECT_EQ(Of("Negative for chills.", "chills"), "negated");
  EXPECT_EQ(Of("Rapid strep neg.", "rapid strep"), "negated");
  EXPECT_EQ(Of("Urine +ve for blood.", "blood"), "affirmed");  // positive
  EXPECT_EQ(Why("Strep test -ve.", "strep test"), "negated / -ve");
}

TEST(Assertion, PostNegationOfADiagnosis) {
  const std::string t = "Traumatic brain injury not diagnosed; deferred pending neuropsychological testing.";
  EXPECT_EQ(Of(t, "traumatic brain injury"), "negated");
  EXPECT_EQ(Of("Pneumonia was ruled out.", "pneumonia"), "negated");
  EXPECT_EQ(Of("Fracture not seen on x-ray.", "fracture"), "negated");
  EXPECT_EQ(Of("Murmur not appreciated.", "murmur"), "negated");
  EXPECT_EQ(Of("Pulmonary embolism unlikely.", "pulmonary embolism"), "negated");
  EXPECT_EQ(Of("He was not diagnosed with diabetes.", "diabetes"), "negated");
  EXPECT_EQ(Of("She was not found to have a fracture.", "fracture"), "negated");
  // uncertain, not denied
  EXPECT_EQ(Of("DVT cannot be ruled out.", "DVT"), "hypothetical");
  EXPECT_EQ(Of("Sepsis not ruled out.", "sepsis"), "hypothetical");
  EXPECT_EQ(Why(t, "traumatic brain injury"), "negated / not diagnosed");
}

// ---------------------------------------------------------------- pseudo-trigger lists (issue 10)

TEST(Assertion, NegationReachesTheListAfterAPseudoTrigger) {
  const std::string t = "No change in vision, diplopia or change in hearing.";
  EXPECT_EQ(Of(t, "vision"), "affirmed");
  EXPECT_EQ(Of(t, "diplopia"), "negated");
  EXPECT_EQ(Of(t, "change in hearing"), "negated");
  EXPECT_EQ(Of("No change in his pain.", "pain"), "affirmed");
  EXPECT_EQ(Of("No new rash, fever or chills.", "rash"), "affirmed");
  EXPECT_EQ(Of("No new rash, fever or chills.", "chills"), "negated");
  EXPECT_EQ(Of("Walks without difficulty, pain or dizziness.", "dizziness"), "negated");
  EXPECT_EQ(Of("No change in vision or hearing.", "hearing"), "affirmed");  // no comma: one object
  EXPECT_EQ(Of("No change in pain; headache, nausea.", "nausea"), "affirmed");  // the clause ended
  EXPECT_EQ(Why(t, "diplopia"), "negated / No change");
}

// ---------------------------------------------------------------- former / quit / ex- (issue 10)

TEST(Assertion, FormerQuitAndExAreHistorical) {
  EXPECT_EQ(Of("Former smoker.", "smoker"), "historical");
  EXPECT_EQ(Of("Former alcohol use; quit years ago.", "alcohol use"), "historical");
  EXPECT_EQ(Of("Quit drinking years ago.", "drinking"), "historical");
  EXPECT_EQ(Of("She quit smoking in 2010.", "smoking"), "historical");
  EXPECT_EQ(Of("Ex-smoker, 20 pack years.", "smoker"), "historical");
  EXPECT_EQ(Of("ex smoker", "smoker"), "historical");
  EXPECT_EQ(Of("Gave up smoking last year.", "smoking"), "historical");
  // intent to quit is not the past
  EXPECT_EQ(Of("He wants to quit smoking.", "smoking"), "affirmed");
  EXPECT_EQ(Of("Advised to quit smoking.", "smoking"), "affirmed");
  // the prefix takes one word only
  EXPECT_EQ(Of("Ex-smoker, drinks alcohol daily.", "alcohol"), "affirmed");
  EXPECT_EQ(Why("Ex-smoker.", "smoker"), "historical / Ex");
}

TEST(Assertion, CurrentInabilityIsNotHistorical) {
  EXPECT_EQ(Of("He could no longer take care of himself.", "take care of himself"), "affirmed");
  EXPECT_EQ(Of("She can no longer climb stairs.", "climb stairs"), "affirmed");
  EXPECT_EQ(Of("No longer able to drive.", "drive"), "affirmed");
  EXPECT_EQ(Of("He is no longer able to work.", "work"), "affirmed");
  EXPECT_EQ(Of("No longer on amlodipine.", "amlodipine"), "historical");  // stopped: still historical
  EXPECT_EQ(Of("History of present illness: cough for two weeks.", "cough"), "affirmed");
}

// ---------------------------------------------------------------- other general classes

TEST(Assertion, NonPrefixNegatesTheWordItJoins) {
  EXPECT_EQ(Of("Abdomen non-tender, distended.", "tender"), "negated");
  EXPECT_EQ(Of("Abdomen non-tender, distended.", "distended"), "affirmed");
  EXPECT_EQ(Of("Non smoker.", "smoker"), "negated");
  EXPECT_EQ(Of("Non-productive cough.", "productive cough"), "negated");
  EXPECT_EQ(Of("Non-productive cough.", "cough"), "affirmed");
}

TEST(Assertion, RiskAndPreventionAreHypothetical) {
  EXPECT_EQ(Of("At risk for falls.", "falls"), "hypothetical");
  EXPECT_EQ(Of("Aspirin to prevent stroke.", "stroke"), "hypothetical");
  EXPECT_EQ(Of("Monitor for bleeding.", "bleeding"), "hypothetical");
  EXPECT_EQ(Of("This medication may cause nausea.", "nausea"), "hypothetical");
  EXPECT_EQ(Of("Call as soon as possible with any questions.", "questions"), "affirmed");
}

TEST(Assertion, FamilyPossessivesAndThePatientAsARelative) {
  EXPECT_EQ(Of("Mother's diabetes.", "diabetes"), "family");
  EXPECT_EQ(Of("Her brother's colon cancer.", "colon cancer"), "family");
  EXPECT_EQ(Of("Children also unwell with vomiting.", "vomiting"), "family");
  EXPECT_EQ(Of("Mother of two with asthma.", "asthma"), "affirmed");
}

TEST(Assertion, NewTerminators) {
  EXPECT_EQ(Of("No fever, still has a cough.", "cough"), "affirmed");
  EXPECT_EQ(Of("No chest pain, found to have pneumonia.", "pneumonia"), "affirmed");
}

TEST(Assertion, AHistoryWithADurationIsCurrent) {
  EXPECT_EQ(Of("He presents with a one-week history of shortness of breath.", "shortness of breath"), "affirmed");
  EXPECT_EQ(Of("3-day history of fever.", "fever"), "affirmed");
  EXPECT_EQ(Of("HPC: 4-5 day hx runny nose.", "runny nose"), "affirmed");
  EXPECT_EQ(Of("3/7 hx of diarrhoea.", "diarrhoea"), "affirmed");
  EXPECT_EQ(Of("A long history of hypertension.", "hypertension"), "affirmed");
  EXPECT_EQ(Of("History of hypertension.", "hypertension"), "historical");  // no duration: the past
  EXPECT_EQ(Of("PMH: Eczema, asthma", "asthma"), "historical");
  EXPECT_EQ(Of("Past medical history significant for depression and hypertension.", "hypertension"), "historical");
}

TEST(Assertion, TheTextTurningToThePresentEndsAHistoricalScope) {
  EXPECT_EQ(Of("History of asthma, currently wheezing.", "wheezing"), "affirmed");
  EXPECT_EQ(Of("History of hypertension and now an acute episode of palpitations.", "palpitations"), "affirmed");
  EXPECT_EQ(Of("History of hypertension and now an acute episode of palpitations.", "hypertension"), "historical");
  // only historical scopes end there
  EXPECT_EQ(Of("No fever, currently no cough.", "cough"), "negated");
  EXPECT_EQ(Of("Denies chest pain today.", "chest pain"), "negated");
}

TEST(Assertion, EffectsOnSomethingPresentAreNotDenials) {
  EXPECT_EQ(Of("Tylenol did not help his pain.", "pain"), "affirmed");
  EXPECT_EQ(Of("Activity does not impact his knee pain.", "knee pain"), "affirmed");
  EXPECT_EQ(Of("The cough has not improved.", "cough"), "affirmed");
  EXPECT_EQ(Of("Headache no better with rest.", "headache"), "affirmed");
  EXPECT_EQ(Of("He does not smoke.", "smoke"), "negated");  // "does not" is still a denial
  EXPECT_EQ(Of("She did not have a fever.", "fever"), "negated");
}

TEST(Assertion, APossessiveAfterIfPresupposesTheFinding) {
  EXPECT_EQ(Of("If his pain does not improve, return to clinic.", "pain"), "affirmed");
  EXPECT_EQ(Of("If he continues to have pain, we will obtain an MRI.", "pain"), "affirmed");
  EXPECT_EQ(Of("Call if he develops a fever.", "fever"), "hypothetical");
  EXPECT_EQ(Of("Review if no better, or earlier if worsening (fever, chest pain).", "chest pain"), "hypothetical");
}

TEST(Assertion, FamilyScopesRunThroughRelativeClauses) {
  EXPECT_EQ(Of("Significant for two brothers and father who have cancer.", "cancer"), "family");
  EXPECT_EQ(Of("She has a sister who has yeast infections.", "yeast infections"), "family");
  EXPECT_EQ(Of("Family is positive for heart disease.", "heart disease"), "family");
  EXPECT_EQ(Of("Several family members positive for hypertension.", "hypertension"), "family");
  EXPECT_EQ(Of("No history of depression in family.", "depression"), "family");
  EXPECT_EQ(Of("Unsure of familial history of hypertension.", "hypertension"), "family");
  // "who" still ends other scopes
  EXPECT_EQ(Of("No fever in a man who has a cough.", "cough"), "affirmed");
}

TEST(Assertion, RelativesWhoAccompanyOrReport) {
  EXPECT_EQ(Of("Brought in by her father today for evaluation of a right knee injury.", "knee injury"), "affirmed");
  EXPECT_EQ(Of("Presents with her mother for evaluation of headache.", "headache"), "affirmed");
  EXPECT_EQ(Of("Patient and daughter deny fevers and vomiting.", "vomiting"), "negated");
  EXPECT_EQ(Of("Mother has migraines.", "migraines"), "family");
}

TEST(Assertion, NegativeAsFarAs) {
  EXPECT_EQ(Of("Negative as far as sore throat, earache, or cough.", "cough"), "negated");
}

// ---------------------------------------------------------------- deciding cues

TEST(AssertionCue, TheTriggerThatDecided) {
  EXPECT_EQ(Why("Denies chest pain.", "chest pain"), "negated / Denies");
  EXPECT_EQ(Why("Fever was denied.", "fever"), "negated / was denied");
  EXPECT_EQ(Why("Patient has chest pain.", "chest pain"), "affirmed / ");
  EXPECT_EQ(Why("No fever; cough.", "cough"), "affirmed / ");
  // the nearest of several: "denies" is nearer to cough than "No"
  EXPECT_EQ(Why("No fever, denies cough.", "cough"), "negated / denies");
  EXPECT_EQ(Why("No fever, denies cough.", "fever"), "negated / No");
  // a forward and a backward scope: the nearer trigger
  EXPECT_EQ(Why("No fever, headache, cough denied.", "cough"), "negated / denied");
  EXPECT_EQ(Why("No fever, headache, cough denied.", "fever"), "negated / No");
  EXPECT_EQ(Why("No fever cough denied.", "cough"), "negated / No");  // equally near: the pre-trigger
  // the strongest category decides, and its trigger is reported
  EXPECT_EQ(Why("Mother denies chest pain.", "chest pain"), "family / Mother");
  EXPECT_EQ(Why("No history of asthma.", "asthma"), "negated / No");
  EXPECT_EQ(Why("History of asthma.", "asthma"), "historical / History of");
  EXPECT_EQ(Why("Rule out bipolar disorder.", "bipolar disorder"), "hypothetical / Rule out");
  EXPECT_EQ(Why("Diabetes runs in the family.", "diabetes"), "family / runs in the family");
}

TEST(AssertionCue, DecidingCueOfARange) {
  std::vector<uint8_t> bits = {0, kBitNegated, kBitNegated | kBitFamily, kBitHistorical};
  std::vector<AssertionCue> cues = {{}, {0, 1}, {5, 6}, {7, 8}};
  EXPECT_EQ(AssertionAnalyzer::DecidingCue(bits, cues, 0, 1), AssertionCue{});
  EXPECT_EQ(AssertionAnalyzer::DecidingCue(bits, cues, 0, 2), (AssertionCue{0, 1}));
  EXPECT_EQ(AssertionAnalyzer::DecidingCue(bits, cues, 1, 4), (AssertionCue{5, 6}));  // family wins
  EXPECT_EQ(AssertionAnalyzer::DecidingCue(bits, cues, 3, 4), (AssertionCue{7, 8}));
  EXPECT_EQ(AssertionAnalyzer::DecidingCue(bits, cues, 3, 99), (AssertionCue{7, 8}));  // clipped
  EXPECT_EQ(AssertionAnalyzer::DecidingCue(bits, {}, 1, 2), AssertionCue{});          // no cues asked
  EXPECT_TRUE(AssertionCue{}.empty());
  TokenizedText tt = Analyze("x", {});
  EXPECT_EQ(AssertionAnalyzer::CueText(tt, {}), "");
  EXPECT_EQ(AssertionAnalyzer::CueText(tt, {0, 5}), "");  // out of range
}

// ---------------------------------------------------------------- cost (issue 9 item 2)

// Scopes are swept, not rescanned per trigger: 200,000 bytes of "no;" (66,667 triggers and as
// many clause breaks in one sentence) took 6.8 s of CPU before; a linear pass takes well under 1 s
// even on a loaded machine. tests/bench/grader_bench.cpp measures the shapes.
TEST(AssertionCost, TriggersTimesBreaksIsLinear) {
  for (const std::string unit : {"no;", "no ", "fever denied ", "COMPLICATIONS: None "}) {
    std::string text;
    while (text.size() < 200000) text += unit;
    TokenizedText tt = Analyze(text, DefaultRules().assertion.abbreviations);
    std::clock_t start = std::clock();
    std::vector<AssertionCue> cues;
    std::vector<uint8_t> bits = DefaultAssertionAnalyzer().Analyze(tt, nullptr, &cues);
    double seconds = static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC;
    EXPECT_LT(seconds, 1.0) << unit;
    EXPECT_EQ(bits.size(), tt.tokens.size());
  }
}

// Sentences whose triggers open scopes in one direction or none (a terminator alone, a forward
// trigger alone, a backward trigger alone, one category alone): the same bits with and without
// cues, and the cues of the nearest trigger.
TEST(Assertion, OneWayAndScopelessTriggersKeepTheirBitsAndCues) {
  TokenizedText tt = Analyze("Cough but fever. No rash. Chills denied. History of asthma.", DefaultRules().assertion.abbreviations);
  std::vector<uint32_t> clauses;
  std::vector<AssertionCue> cues;
  std::vector<uint8_t> bits = DefaultAssertionAnalyzer().Analyze(tt, &clauses, &cues);
  EXPECT_EQ(DefaultAssertionAnalyzer().Analyze(tt), bits);
  EXPECT_EQ(clauses, (std::vector<uint32_t>{1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 5, 5}));
  EXPECT_EQ(bits, (std::vector<uint8_t>{0, kBitTrigger, 0, 0, kBitTrigger, kBitNegated, kBitNegated, kBitNegated,
                                        kBitTrigger, kBitNegated, kBitTrigger, kBitTrigger, kBitHistorical,
                                        kBitHistorical}));
  std::vector<AssertionCue> expected(14);
  expected[5] = expected[6] = AssertionCue{4, 5};
  expected[7] = expected[9] = AssertionCue{8, 9};
  expected[12] = expected[13] = AssertionCue{10, 12};
  EXPECT_EQ(cues, expected);
}

}  // namespace
}  // namespace scribe
