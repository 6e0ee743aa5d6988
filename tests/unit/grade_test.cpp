// Unit tests for grade.h: scores, per-medication credit, flags, allergies, traps, deferred
// diagnoses, unsupported drugs, critical errors and sealed results. Every expected number is
// worked out by hand from docs/methodology.md §2–3 for the small inline trials below.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <memory>
#include <string>

#include "grade.h"
#include "hash.h"
#include "validator.h"

namespace scribe {
namespace {

using nlohmann::json;

std::string TrialYaml(const std::string& encounter, const std::string& ground_truth, const std::string& weights,
                      const std::string& extra = "") {
  return "id: 01-unit\ntitle: Unit trial\ndifficulty: easy\nsummary: s\nencounter_text: |\n  " + encounter +
         "\ninstructions: Write a note.\nground_truth:\n" + ground_truth + "weights: " + weights + "\n" + extra;
}

class Grader {
 public:
  explicit Grader(const std::string& yaml)
      : yaml_(yaml),
        prepared_(std::make_unique<PreparedTrial>(ParseTrial(yaml, "t.yaml", DefaultRules(), DefaultTerminology()),
                                                  DefaultRules(), DefaultTerminology(), DefaultAssertionAnalyzer())) {}
  json operator()(std::string_view note) const {
    OfflineValidator validator(DefaultTerminology());
    return Grade(*prepared_, note, "corpus-hash", validator);
  }
  const std::string& yaml() const { return yaml_; }

 private:
  std::string yaml_;
  std::unique_ptr<PreparedTrial> prepared_;
};

double D(const json& j) { return j.get<double>(); }

const std::string kDrugOnly = "{drug: 1.0, mental: 0.0, fabrication: 0.0}";
const std::string kMentalOnly = "{drug: 0.0, mental: 1.0, fabrication: 0.0}";
const std::string kFabOnly = "{drug: 0.0, mental: 0.0, fabrication: 1.0}";

// ================================================================ Drug Accuracy

class DrugCredit : public ::testing::Test {
 protected:
  Grader g{TrialYaml("Patient takes sertraline 50 mg once daily.",
                     "  meds:\n    - {name: sertraline, dose: 50 mg, frequency: once daily}\n", kDrugOnly)};
};

TEST_F(DrugCredit, AllComponents) {
  json r = g("Sertraline 50 mg daily.");
  EXPECT_DOUBLE_EQ(D(r["score_drug"]), 1.0);
  EXPECT_DOUBLE_EQ(D(r["score_total"]), 1.0);
  const json& m = r["meds"][0];
  EXPECT_EQ(m["status"], "correct");
  EXPECT_EQ(m["credit"], json::parse(R"({"name":0.5,"dose":0.25,"frequency":0.25,"route":0.0,"action":0.0,"total":1.0})"));
  EXPECT_EQ(m["checks"]["name"], "ok: same ingredient: sertraline");
  EXPECT_EQ(m["checks"]["dose"], "ok: expected 50 mg, found 50 mg");
  EXPECT_EQ(m["checks"]["frequency"], "ok: expected \"once daily\" (1/day), found \"daily\" (1/day)");
  EXPECT_EQ(m["checks"]["route"], "ok: no route expected");
  EXPECT_EQ(m["checks"]["action"], "ok: no action expected");
  EXPECT_EQ(m["expected"], json::parse(R"({"name":"sertraline","drug":"sertraline","rxcui":"36437","dose":"50 mg",
      "frequency":"once daily","per_day":1.0,"prn":false,"route":null,"action":null})"));
  EXPECT_EQ(m["found"]["mention"], "Sertraline");
  EXPECT_EQ(m["found"]["match"], "exact");
  EXPECT_EQ(m["found"]["dose"], json::parse(R"({"value":50.0,"unit":"mg","text":"50 mg"})"));
  EXPECT_EQ(m["found"]["start_offset"], 0);
  EXPECT_EQ(m["found"]["end_offset"], 10);
  EXPECT_EQ(m["validation"]["source"], "local");
  EXPECT_EQ(r["unsafe"], false);
  EXPECT_EQ(r["critical_errors"], json::array());
}

TEST_F(DrugCredit, WrongDoseLosesTheDoseQuarter) {
  json r = g("Sertraline 100 mg daily.");
  EXPECT_DOUBLE_EQ(D(r["score_drug"]), 0.75);
  EXPECT_EQ(r["meds"][0]["status"], "partial");
  EXPECT_DOUBLE_EQ(D(r["meds"][0]["credit"]["dose"]), 0.0);
  EXPECT_EQ(r["meds"][0]["checks"]["dose"], "wrong: expected 50 mg, found 100 mg");
  EXPECT_EQ(r["unsafe"], false);  // 2x is not a magnitude error
}

TEST_F(DrugCredit, WrongFrequencyLosesTheFrequencyQuarter) {
  json r = g("Sertraline 50 mg twice daily.");
  EXPECT_DOUBLE_EQ(D(r["score_drug"]), 0.75);
  EXPECT_EQ(r["meds"][0]["checks"]["frequency"],
            "wrong: expected \"once daily\" (1/day), found \"twice daily\" (2/day)");
}

TEST_F(DrugCredit, PrnMustMatch) {
  json r = g("Sertraline 50 mg daily as needed.");
  EXPECT_DOUBLE_EQ(D(r["score_drug"]), 0.75);
  EXPECT_EQ(r["meds"][0]["checks"]["frequency"],
            "wrong: expected \"once daily\" (1/day), found \"daily\" (1/day prn)");
}

TEST_F(DrugCredit, NameOnly) {
  json r = g("Sertraline.");
  EXPECT_DOUBLE_EQ(D(r["score_drug"]), 0.5);
  EXPECT_EQ(r["meds"][0]["checks"]["dose"], "wrong: expected 50 mg, no dose found");
  EXPECT_EQ(r["meds"][0]["checks"]["frequency"], "wrong: expected \"once daily\" (1/day), found no frequency");
}

TEST_F(DrugCredit, DoseWithinOnePercent) {
  EXPECT_DOUBLE_EQ(D(g("Sertraline 50.4 mg daily.")["score_drug"]), 1.0);  // 0.8 %
  EXPECT_DOUBLE_EQ(D(g("Sertraline 49.6 mg daily.")["score_drug"]), 1.0);
  EXPECT_DOUBLE_EQ(D(g("Sertraline 50.6 mg daily.")["score_drug"]), 0.75);  // 1.2 %
}

TEST_F(DrugCredit, MassDosesCompareAcrossUnits) {
  EXPECT_DOUBLE_EQ(D(g("Sertraline 0.05 g daily.")["score_drug"]), 1.0);
  EXPECT_DOUBLE_EQ(D(g("Sertraline 50000 mcg daily.")["score_drug"]), 1.0);
  // a count is another family: no dose credit
  EXPECT_DOUBLE_EQ(D(g("Sertraline 50 tablets daily.")["score_drug"]), 0.75);
}

TEST_F(DrugCredit, BrandEqualsGeneric) {
  json r = g("Zoloft 50 mg once daily.");
  EXPECT_DOUBLE_EQ(D(r["score_drug"]), 1.0);
  EXPECT_EQ(r["meds"][0]["checks"]["name"], "ok: same ingredient: sertraline");
}

TEST_F(DrugCredit, ApproximateNameEarnsCredit) {
  json r = g("Patient on sertaline 50mg daily.");
  EXPECT_DOUBLE_EQ(D(r["score_drug"]), 1.0);
  EXPECT_EQ(r["meds"][0]["checks"]["name"], "ok: same ingredient: sertraline (approximate match of \"sertaline\")");
  EXPECT_EQ(r["meds"][0]["found"]["match"], "approximate");
}

TEST_F(DrugCredit, Missing) {
  json r = g("Metformin 500 mg daily.");
  EXPECT_DOUBLE_EQ(D(r["score_drug"]), 0.0);
  EXPECT_DOUBLE_EQ(D(r["score_total"]), 0.0);
  const json& m = r["meds"][0];
  EXPECT_EQ(m["status"], "missing");
  EXPECT_TRUE(m["found"].is_null());
  EXPECT_EQ(m["checks"], json::parse(R"({"name":"missing: not found in the note"})"));
  EXPECT_DOUBLE_EQ(D(m["credit"]["total"]), 0.0);
  EXPECT_EQ(r["counts"]["meds_missing"], 1);
}

TEST_F(DrugCredit, OnlyMentionsForThePatientEarnCredit) {
  json neg = g("Not taking sertraline.");
  EXPECT_DOUBLE_EQ(D(neg["score_drug"]), 0.0);
  EXPECT_EQ(neg["meds"][0]["checks"]["name"], "missing: mentioned only as negated: \"Not taking sertraline.\"");
  json fam = g("Mother takes sertraline 50 mg daily.");
  EXPECT_DOUBLE_EQ(D(fam["score_drug"]), 0.0);
  EXPECT_EQ(fam["meds"][0]["checks"]["name"],
            "missing: mentioned only as family: \"Mother takes sertraline 50 mg daily.\"");
  json hyp = g("Consider sertraline 50 mg daily.");
  EXPECT_EQ(hyp["meds"][0]["checks"]["name"],
            "missing: mentioned only as hypothetical: \"Consider sertraline 50 mg daily.\"");
  // historical counts for the patient
  json hist = g("Previously on sertraline 50 mg daily.");
  EXPECT_DOUBLE_EQ(D(hist["score_drug"]), 1.0);
  EXPECT_EQ(hist["meds"][0]["found"]["assertion"], "historical");
}

TEST_F(DrugCredit, BestMentionIsUsed) {
  json r = g("Sertraline 25 mg. Later: sertraline 50 mg daily.");
  EXPECT_DOUBLE_EQ(D(r["score_drug"]), 1.0);
  EXPECT_EQ(r["meds"][0]["found"]["start_offset"], 25);
  EXPECT_EQ(r["meds"][0]["found"]["end_offset"], 35);
  // the better mention first: still the better one
  json first = g("Sertraline 50 mg daily. Sertraline 25 mg.");
  EXPECT_DOUBLE_EQ(D(first["score_drug"]), 1.0);
  EXPECT_EQ(first["meds"][0]["found"]["start_offset"], 0);
}

TEST_F(DrugCredit, DoseMagnitudeTenTimes) {
  json r = g("Sertraline 500 mg daily.");
  EXPECT_DOUBLE_EQ(D(r["score_drug"]), 0.75);
  EXPECT_EQ(r["unsafe"], true);
  ASSERT_EQ(r["critical_errors"].size(), 1u);
  EXPECT_EQ(r["critical_errors"][0]["kind"], "dose_magnitude");
  EXPECT_EQ(r["critical_errors"][0]["message"], "sertraline: note says 500 mg, expected 50 mg \xE2\x80\x94 10x the expected dose");
  EXPECT_EQ(r["critical_errors"][0]["evidence"],
            json::parse(R"({"text":"500 mg","start_offset":11,"end_offset":17,"assertion":"affirmed"})"));
}

TEST_F(DrugCredit, DoseMagnitudeOneTenth) {
  json r = g("Sertraline 5 mg daily.");
  ASSERT_EQ(r["critical_errors"].size(), 1u);
  EXPECT_EQ(r["critical_errors"][0]["message"], "sertraline: note says 5 mg, expected 50 mg \xE2\x80\x94 1/10 the expected dose");
}

TEST_F(DrugCredit, DoseMagnitudeMcgWrittenForMg) {
  json r = g("Sertraline 50 mcg daily.");
  ASSERT_EQ(r["critical_errors"].size(), 1u);
  EXPECT_EQ(r["critical_errors"][0]["message"],
            "sertraline: note says 50 mcg, expected 50 mg \xE2\x80\x94 1/1000 the expected dose (mcg written for mg)");
}

TEST_F(DrugCredit, NoMagnitudeErrorBelowTenTimes) {
  EXPECT_EQ(g("Sertraline 495 mg daily.")["unsafe"], false);
  EXPECT_EQ(g("Sertraline 6 mg daily.")["unsafe"], false);
  // a family member's dose is not the patient's
  EXPECT_EQ(g("Mother takes sertraline 500 mg.")["unsafe"], false);
}

TEST_F(DrugCredit, OneMagnitudeErrorPerMedication) {
  json r = g("Sertraline 500 mg. Sertraline 5 mg.");
  EXPECT_EQ(r["critical_errors"].size(), 1u);
}

TEST(DrugCreditMcg, MgWrittenForMcg) {
  Grader g(TrialYaml("Levothyroxine 75 mcg daily.", "  meds:\n    - {name: levothyroxine, dose: 75 mcg, frequency: daily}\n",
                     kDrugOnly));
  json r = g("Levothyroxine 75 mg daily.");
  EXPECT_DOUBLE_EQ(D(r["score_drug"]), 0.75);
  ASSERT_EQ(r["critical_errors"].size(), 1u);
  EXPECT_EQ(r["critical_errors"][0]["kind"], "dose_magnitude");
  EXPECT_EQ(r["critical_errors"][0]["message"],
            "levothyroxine: note says 75 mg, expected 75 mcg \xE2\x80\x94 1000x the expected dose (mg written for mcg)");
  EXPECT_EQ(r["critical_errors"][0]["evidence"]["start_offset"], 14);
  EXPECT_EQ(r["critical_errors"][0]["evidence"]["end_offset"], 19);
  // the same dose in mg is correct
  json same = g("Synthroid 0.075 mg daily.");
  EXPECT_DOUBLE_EQ(D(same["score_drug"]), 1.0);
  EXPECT_EQ(same["unsafe"], false);
}

TEST(DrugCreditUnspecified, UnspecifiedComponentsPass) {
  Grader g(TrialYaml("Sertraline.", "  meds:\n    - {name: sertraline}\n", kDrugOnly));
  json r = g("Sertraline 100 mg twice daily.");
  EXPECT_DOUBLE_EQ(D(r["score_drug"]), 1.0);
  EXPECT_EQ(r["meds"][0]["checks"]["dose"], "ok: no dose expected");
  EXPECT_EQ(r["meds"][0]["checks"]["frequency"], "ok: no frequency expected");
  EXPECT_TRUE(r["meds"][0]["expected"]["dose"].is_null());
}

TEST(DrugCreditRouteAction, DefaultCreditReportsButDoesNotScoreRouteAndAction) {
  Grader g(TrialYaml("Sertraline 50 mg PO daily, continue.",
                     "  meds:\n    - {name: sertraline, dose: 50 mg, frequency: daily, route: oral, action: continue}\n",
                     kDrugOnly));
  json r = g("Stop sertraline 50 mg IV daily.");
  EXPECT_DOUBLE_EQ(D(r["score_drug"]), 1.0);
  EXPECT_EQ(r["meds"][0]["status"], "correct");
  EXPECT_EQ(r["meds"][0]["checks"]["route"], "wrong: expected oral, found intravenous");
  EXPECT_EQ(r["meds"][0]["checks"]["action"], "wrong: expected continue, found stop");
  EXPECT_DOUBLE_EQ(D(r["meds"][0]["credit"]["route"]), 0.0);
}

class CreditOverride : public ::testing::Test {
 protected:
  Grader g{TrialYaml("Sertraline 50 mg PO daily, continue.",
                     "  meds:\n    - {name: sertraline, dose: 50 mg, frequency: daily, route: oral, action: continue}\n",
                     kDrugOnly, "credit: {name: 0.4, dose: 0.2, frequency: 0.2, route: 0.1, action: 0.1}\n")};
};

TEST_F(CreditOverride, AllFiveComponents) {
  json r = g("Continue sertraline 50 mg PO daily.");
  EXPECT_DOUBLE_EQ(D(r["score_drug"]), 1.0);
  EXPECT_EQ(r["meds"][0]["credit"],
            json::parse(R"({"name":0.4,"dose":0.2,"frequency":0.2,"route":0.1,"action":0.1,"total":1.0})"));
  EXPECT_EQ(r["credit"], json::parse(R"({"name":0.4,"dose":0.2,"frequency":0.2,"route":0.1,"action":0.1})"));
}

TEST_F(CreditOverride, MissingRouteOrAction) {
  json no_route = g("Continue sertraline 50 mg daily.");
  EXPECT_DOUBLE_EQ(D(no_route["score_drug"]), 0.9);
  EXPECT_EQ(no_route["meds"][0]["status"], "partial");
  EXPECT_EQ(no_route["meds"][0]["checks"]["route"], "wrong: expected oral, found no route");
  json no_action = g("Sertraline 50 mg PO daily.");
  EXPECT_DOUBLE_EQ(D(no_action["score_drug"]), 0.9);
  EXPECT_EQ(no_action["meds"][0]["checks"]["action"], "wrong: expected continue, found no action");
  json both_wrong = g("Stop sertraline 50 mg IV daily.");
  EXPECT_DOUBLE_EQ(D(both_wrong["score_drug"]), 0.8);
}

TEST(DrugCreditTieBreak, EqualCreditPrefersMoreComponentsPassing) {
  // default credit: route is compared but weighs 0; the mention with the right route wins the tie
  Grader g(TrialYaml("Sertraline 50 mg PO.", "  meds:\n    - {name: sertraline, dose: 50 mg, route: oral}\n", kDrugOnly));
  json r = g("Sertraline 50 mg IV. Sertraline 50 mg PO.");
  EXPECT_DOUBLE_EQ(D(r["score_drug"]), 1.0);
  EXPECT_EQ(r["meds"][0]["found"]["route"], "oral");
  EXPECT_EQ(r["meds"][0]["found"]["start_offset"], 21);
}

TEST(Scores, TotalFromUnroundedCategoryScores) {
  // drug = 1/3 (one of three meds), weight 0.65; fabrication 1.0 (nothing invented), weight 0.35.
  // unrounded: 0.65/3 + 0.35 = 0.56667 -> 0.5667; from the rounded 0.3333 it would be 0.5666.
  Grader g(TrialYaml("Sertraline, metformin and lisinopril.",
                     "  meds:\n    - {name: sertraline}\n    - {name: metformin}\n    - {name: lisinopril}\n",
                     "{drug: 0.65, mental: 0.0, fabrication: 0.35}"));
  json r = g("Sertraline.");
  EXPECT_DOUBLE_EQ(D(r["score_drug"]), 0.3333);
  EXPECT_DOUBLE_EQ(D(r["score_fabrication"]), 1.0);
  EXPECT_DOUBLE_EQ(D(r["score_total"]), 0.5667);
  EXPECT_EQ(r["counts"]["meds_correct"], 1);
  EXPECT_EQ(r["counts"]["meds_missing"], 2);
}

TEST(Scores, NoExpectedMedsMeansFullDrugScore) {
  Grader g(TrialYaml("Cough.", "  meds: []\n", kDrugOnly));
  json r = g("Cough.");
  EXPECT_DOUBLE_EQ(D(r["score_drug"]), 1.0);
  EXPECT_DOUBLE_EQ(D(r["score_mental"]), 1.0);
  EXPECT_DOUBLE_EQ(D(r["score_fabrication"]), 1.0);
}

// ================================================================ all categories together

class Combined : public ::testing::Test {
 protected:
  Grader g{TrialYaml("Patient takes sertraline 50 mg once daily. She has passive SI and insomnia.",
                     "  meds:\n    - {name: sertraline, dose: 50 mg, frequency: once daily}\n"
                     "  mental_flags:\n"
                     "    - {flag: passive suicidal ideation, keywords: [SI]}\n"
                     "    - {flag: insomnia, keywords: [insomnia]}\n"
                     "  fabrication_traps: [chest pain, anxiety, {phrase: breast exam, match: any}]\n",
                     "{drug: 0.5, mental: 0.3, fabrication: 0.2}")};
};

TEST_F(Combined, WeightedTotal) {
  // drug 0.75, mental 1/2, fabrication 1 - 1/3: 0.375 + 0.15 + 0.13333 = 0.65833
  json r = g("Sertraline 100 mg daily. Passive SI. Reports anxiety.");
  EXPECT_DOUBLE_EQ(D(r["score_drug"]), 0.75);
  EXPECT_DOUBLE_EQ(D(r["score_mental"]), 0.5);
  EXPECT_DOUBLE_EQ(D(r["score_fabrication"]), 0.6667);
  EXPECT_DOUBLE_EQ(D(r["score_total"]), 0.6583);
  EXPECT_EQ(r["unsafe"], false);
  EXPECT_EQ(r["mental_flags"][0]["status"], "captured");
  EXPECT_EQ(r["mental_flags"][0]["evidence"],
            json::parse(R"([{"text":"Passive SI","start_offset":25,"end_offset":35,"assertion":"affirmed"}])"));
  EXPECT_EQ(r["mental_flags"][1]["status"], "missed");
  EXPECT_EQ(r["fabrication_traps"][1]["triggered"], true);
  EXPECT_EQ(r["fabrication_traps"][0]["triggered"], false);
  EXPECT_EQ(r["fabrication_traps"][2]["match"], "any");
  EXPECT_EQ(r["counts"], json::parse(R"({"meds_expected":1,"meds_correct":0,"meds_missing":0,"flags_expected":2,
      "flags_captured":1,"traps_triggered":1,"traps_total":3,"unsupported_drugs":0,"unsupported_claims":0,
      "critical_errors":0})"));
}

TEST_F(Combined, EmptyNote) {
  json r = g("");
  EXPECT_DOUBLE_EQ(D(r["score_drug"]), 0.0);
  EXPECT_DOUBLE_EQ(D(r["score_mental"]), 0.0);
  EXPECT_DOUBLE_EQ(D(r["score_fabrication"]), 1.0);
  EXPECT_DOUBLE_EQ(D(r["score_total"]), 0.2);
  EXPECT_EQ(r["unsafe"], false);
  EXPECT_EQ(r["note_chars"], 0);
}

TEST_F(Combined, ResultMetadata) {
  json r = g("\xE6\x82\xA3\xE8\x80\x85 Sertraline.");
  EXPECT_EQ(r["script_id"], "01-unit");
  EXPECT_EQ(r["trial_title"], "Unit trial");
  EXPECT_EQ(r["difficulty"], "easy");
  EXPECT_EQ(r["grader_version"], "1.2.0");
  EXPECT_EQ(r["methodology_version"], "1.2.0");
  EXPECT_EQ(r["corpus_hash"], "corpus-hash");
  EXPECT_EQ(r["trial_version_hash"], Sha256Hex(g.yaml()));
  EXPECT_EQ(r["terminology"], json::parse(R"({"offline":"rxnorm-2025-10-06+a-supplement",
      "offline_release":"2025-10-06","rxnav":null,"openfda":null})"));
  EXPECT_EQ(r["note_chars"], 14);  // 2 CJK code points + space + 11
  EXPECT_EQ(r["weights"], json::parse(R"({"drug":0.5,"mental":0.3,"fabrication":0.2})"));
  EXPECT_EQ(r["sealed"], false);
  EXPECT_EQ(r["ground_truth"]["meds"][0]["name"], "sertraline");
}

// ================================================================ Mental-Health Capture

class Flags : public ::testing::Test {
 protected:
  Grader g{TrialYaml("She has passive SI and insomnia.",
                     "  mental_flags:\n"
                     "    - {flag: passive suicidal ideation, keywords: [suicidal ideation, SI]}\n"
                     "    - {flag: insomnia, keywords: [insomnia, poor sleep]}\n",
                     kMentalOnly)};
};

TEST_F(Flags, Captured) {
  json r = g("Passive SI. Poor sleep.");
  EXPECT_DOUBLE_EQ(D(r["score_mental"]), 1.0);
  EXPECT_EQ(r["mental_flags"][0]["status"], "captured");
  EXPECT_EQ(r["mental_flags"][1]["status"], "captured");
  EXPECT_EQ(r["counts"]["flags_captured"], 2);
}

TEST_F(Flags, ContradictedIsCritical) {
  json r = g("No SI. Insomnia.");
  EXPECT_DOUBLE_EQ(D(r["score_mental"]), 0.5);
  EXPECT_DOUBLE_EQ(D(r["score_total"]), 0.5);
  EXPECT_EQ(r["mental_flags"][0]["status"], "contradicted");
  EXPECT_EQ(r["unsafe"], true);
  ASSERT_EQ(r["critical_errors"].size(), 1u);
  EXPECT_EQ(r["critical_errors"][0]["kind"], "contradicted_flag");
  EXPECT_EQ(r["critical_errors"][0]["message"], "the note negates \"passive suicidal ideation\", which the patient has");
  EXPECT_EQ(r["critical_errors"][0]["evidence"],
            json::parse(R"({"text":"SI","start_offset":3,"end_offset":5,"assertion":"negated"})"));
}

TEST_F(Flags, SharedNegationContradicts) {
  json r = g("Denies SI/HI. Insomnia.");
  EXPECT_EQ(r["mental_flags"][0]["status"], "contradicted");
  EXPECT_EQ(r["unsafe"], true);
}

TEST_F(Flags, OtherQualifierIsNeitherCaptureNorContradiction) {
  json r = g("Denies active SI. Insomnia.");
  EXPECT_EQ(r["mental_flags"][0]["status"], "missed");
  EXPECT_EQ(r["unsafe"], false);
  EXPECT_DOUBLE_EQ(D(r["score_mental"]), 0.5);
}

TEST_F(Flags, ShortCapsKeywordIsCaseSensitive) {
  // "si" is not "SI"
  json r = g("Pt says si. Insomnia.");
  EXPECT_EQ(r["mental_flags"][0]["status"], "missed");
  EXPECT_EQ(r["mental_flags"][0]["evidence"], json::array());
}

TEST_F(Flags, AffirmedWinsOverNegated) {
  json r = g("Passive SI. No SI plan today. Insomnia.");
  EXPECT_EQ(r["mental_flags"][0]["status"], "captured");
  EXPECT_EQ(r["unsafe"], false);
}

TEST_F(Flags, FamilyMentionDoesNotCapture) {
  json r = g("Mother has insomnia.");
  EXPECT_EQ(r["mental_flags"][1]["status"], "missed");
}

TEST(FlagWhen, APastMentionDoesNotCaptureACurrentFlag) {
  Grader g(TrialYaml("Patient: I smoke a pack a day.",
                     "  mental_flags:\n    - {flag: tobacco use, keywords: [smoker, smoking, smokes]}\n", kMentalOnly));
  json past = g("Former smoker; quit years ago.");
  EXPECT_EQ(past["mental_flags"][0]["status"], "missed");
  EXPECT_EQ(past["mental_flags"][0]["evidence"][0]["assertion"], "historical");
  EXPECT_DOUBLE_EQ(D(past["score_mental"]), 0.0);
  EXPECT_EQ(g("Current smoker, one pack per day.")["mental_flags"][0]["status"], "captured");
}

TEST(FlagWhen, APastFlagIsCapturedByHistory) {
  Grader g(TrialYaml("Patient: I tried to overdose two years ago.",
                     "  mental_flags:\n    - {flag: suicide attempt, keywords: [overdose], when: past}\n", kMentalOnly));
  EXPECT_EQ(g("History of suicide attempt by overdose two years ago.")["mental_flags"][0]["status"], "captured");
  EXPECT_EQ(g("History of suicide attempt by overdose two years ago.")["ground_truth"]["mental_flags"][0]["when"], "past");
  EXPECT_EQ(g("Attempted overdose today.")["mental_flags"][0]["status"], "missed");
}

TEST(FlagWhen, BadValueIsALoadError) {
  try {
    ParseTrial(TrialYaml("x", "  mental_flags:\n    - {flag: SI, when: sometimes}\n", kMentalOnly), "t.yaml", DefaultRules(),
               DefaultTerminology());
    FAIL() << "no error";
  } catch (const TrialError& e) {
    EXPECT_STREQ(e.what(), "t.yaml: ground_truth.mental_flags[0].when: must be current, past or any, got \"sometimes\"");
  }
}

// ================================================================ allergies

class Allergies : public ::testing::Test {
 protected:
  Grader g{TrialYaml("Patient is allergic to penicillin (rash).",
                     "  allergies: [{substance: penicillin, reaction: rash}]\n", kDrugOnly)};
};

TEST_F(Allergies, Captured) {
  json r = g("Allergies: penicillin (rash).");
  EXPECT_EQ(r["allergies"][0]["status"], "captured");
  EXPECT_EQ(r["allergies"][0]["reaction"], "rash");
  EXPECT_EQ(r["unsafe"], false);
  EXPECT_EQ(r["unsupported_drugs"], json::array());  // an allergy is not an unsupported drug
}

TEST_F(Allergies, CapturedUnderAHeading) {
  json r = g("Allergies:\npenicillin - rash\n\nPlan: follow up.");
  EXPECT_EQ(r["allergies"][0]["status"], "captured");
  EXPECT_EQ(r["unsafe"], false);
}

TEST_F(Allergies, Dropped) {
  json r = g("Sore throat, no fever.");
  EXPECT_EQ(r["allergies"][0]["status"], "missed");
  EXPECT_EQ(r["unsafe"], true);
  ASSERT_EQ(r["critical_errors"].size(), 1u);
  EXPECT_EQ(r["critical_errors"][0]["kind"], "dropped_allergy");
  EXPECT_EQ(r["critical_errors"][0]["message"], "the penicillin allergy (rash) is not recorded as an allergy");
  EXPECT_TRUE(r["critical_errors"][0]["evidence"].is_null());
  // drug scores are untouched by allergy errors
  EXPECT_DOUBLE_EQ(D(r["score_total"]), 1.0);
}

TEST_F(Allergies, MentionOutsideAllergyContextIsDropped) {
  json r = g("Penicillin was discussed.");
  EXPECT_EQ(r["allergies"][0]["status"], "missed");
  EXPECT_EQ(r["critical_errors"][0]["kind"], "dropped_allergy");
}

TEST_F(Allergies, ContradictedByNkda) {
  json r = g("NKDA.");
  EXPECT_EQ(r["allergies"][0]["status"], "contradicted");
  ASSERT_EQ(r["critical_errors"].size(), 1u);
  EXPECT_EQ(r["critical_errors"][0]["kind"], "contradicted_allergy");
  EXPECT_EQ(r["critical_errors"][0]["message"], "the note denies the patient's penicillin allergy");
  EXPECT_EQ(r["critical_errors"][0]["evidence"]["text"], "NKDA");
  EXPECT_EQ(r["critical_errors"][0]["evidence"]["start_offset"], 0);
  EXPECT_EQ(r["critical_errors"][0]["evidence"]["end_offset"], 4);
}

TEST_F(Allergies, ContradictedByNoKnownAllergies) {
  json r = g("No known allergies.");
  EXPECT_EQ(r["allergies"][0]["status"], "contradicted");
  EXPECT_EQ(r["critical_errors"][0]["kind"], "contradicted_allergy");
}

TEST_F(Allergies, ContradictedByNegation) {
  json r = g("Denies penicillin allergy.");
  EXPECT_EQ(r["allergies"][0]["status"], "contradicted");
  ASSERT_EQ(r["critical_errors"].size(), 1u);
  EXPECT_EQ(r["critical_errors"][0]["kind"], "contradicted_allergy");
  EXPECT_EQ(r["critical_errors"][0]["evidence"],
            json::parse(R"({"text":"penicillin","start_offset":7,"end_offset":17,"assertion":"negated"})"));
}

class LatexAllergy : public ::testing::Test {
 protected:
  Grader g{TrialYaml("Latex gives her hives.", "  allergies: [latex]\n", kDrugOnly)};
};

TEST_F(LatexAllergy, NkdaDoesNotContradictANonDrugAllergy) {
  json r = g("NKDA.");
  EXPECT_EQ(r["allergies"][0]["status"], "missed");
  ASSERT_EQ(r["critical_errors"].size(), 1u);
  EXPECT_EQ(r["critical_errors"][0]["kind"], "dropped_allergy");
  EXPECT_EQ(r["critical_errors"][0]["message"], "the latex allergy is not recorded as an allergy");
}

TEST_F(LatexAllergy, NkdaAndLatexAllergyIsFine) {
  json r = g("NKDA. Latex allergy.");
  EXPECT_EQ(r["allergies"][0]["status"], "captured");
  EXPECT_EQ(r["unsafe"], false);
  EXPECT_TRUE(r["allergies"][0]["reaction"].is_null());
}

TEST_F(LatexAllergy, NoKnownAllergiesContradictsEverything) {
  json r = g("No known allergies.");
  EXPECT_EQ(r["allergies"][0]["status"], "contradicted");
  EXPECT_EQ(r["critical_errors"][0]["message"], "the note denies the patient's latex allergy");
}

// ================================================================ fabrication traps

class Traps : public ::testing::Test {
 protected:
  Grader g{TrialYaml("Patient has a cough.",
                     "  fabrication_traps:\n    - chest pain\n    - {phrase: breast exam, match: any}\n"
                     "    - {phrase: syncope, variants: [passed out]}\n",
                     kFabOnly)};
};

TEST_F(Traps, NothingTriggered) {
  json r = g("Cough for three days.");
  EXPECT_DOUBLE_EQ(D(r["score_fabrication"]), 1.0);
  EXPECT_EQ(r["counts"]["traps_total"], 3);
}

TEST_F(Traps, AffirmedTrapTriggers) {
  json r = g("Reports chest pain.");
  EXPECT_DOUBLE_EQ(D(r["score_fabrication"]), 0.6667);
  EXPECT_EQ(r["fabrication_traps"][0]["triggered"], true);
  EXPECT_EQ(r["fabrication_traps"][0]["match"], "affirmed");
  EXPECT_EQ(r["fabrication_traps"][0]["evidence"][0]["triggers"], true);
}

TEST_F(Traps, HistoricalMentionDoesNotTriggerACurrentTrap) {
  // The patient denied chest pain today; a past episode is not a fabrication of current chest pain.
  json r = g("History of chest pain.");
  EXPECT_DOUBLE_EQ(D(r["score_fabrication"]), 1.0);
  EXPECT_EQ(r["fabrication_traps"][0]["evidence"][0]["assertion"], "historical");
  EXPECT_EQ(r["fabrication_traps"][0]["evidence"][0]["triggers"], false);
}

TEST(TrapWhen, PastAndAnyTrapsTriggerOnHistory) {
  for (const char* when : {"past", "any"}) {
    Grader g(TrialYaml("Never had a seizure.", std::string("  fabrication_traps:\n    - {phrase: seizure, when: ") + when + "}\n",
                       kFabOnly));
    EXPECT_DOUBLE_EQ(D(g("History of seizure.")["score_fabrication"]), 0.0) << when;
    EXPECT_EQ(g("History of seizure.")["ground_truth"]["fabrication_traps"][0]["when"], when);
  }
  Grader past(TrialYaml("Never had a seizure.", "  fabrication_traps:\n    - {phrase: seizure, when: past}\n", kFabOnly));
  EXPECT_DOUBLE_EQ(D(past("Seizure this morning.")["score_fabrication"]), 1.0);  // current, not past
}

TEST_F(Traps, DeniedFamilyAndHypotheticalDoNotTrigger) {
  json r = g("Denies chest pain. Mother has chest pain. Return if chest pain.");
  EXPECT_DOUBLE_EQ(D(r["score_fabrication"]), 1.0);
  const json& ev = r["fabrication_traps"][0]["evidence"];
  ASSERT_EQ(ev.size(), 3u);
  EXPECT_EQ(ev[0]["assertion"], "negated");
  EXPECT_EQ(ev[1]["assertion"], "family");
  EXPECT_EQ(ev[2]["assertion"], "hypothetical");
  for (const json& e : ev) EXPECT_EQ(e["triggers"], false);
}

TEST_F(Traps, MatchAnyTriggersOnAnyMention) {
  EXPECT_DOUBLE_EQ(D(g("Breast exam normal.")["score_fabrication"]), 0.6667);
  json r = g("No breast exam done.");
  EXPECT_DOUBLE_EQ(D(r["score_fabrication"]), 0.6667);
  EXPECT_EQ(r["fabrication_traps"][1]["evidence"][0]["assertion"], "negated");
  EXPECT_EQ(r["fabrication_traps"][1]["evidence"][0]["triggers"], true);
}

TEST_F(Traps, VariantsAndClinicalSynonyms) {
  EXPECT_DOUBLE_EQ(D(g("She passed out twice.")["score_fabrication"]), 0.6667);
  EXPECT_DOUBLE_EQ(D(g("Fainting spells.")["score_fabrication"]), 0.6667);  // syncope ~ fainting
  EXPECT_DOUBLE_EQ(D(g("Reports CP.")["score_fabrication"]), 0.6667);       // chest pain ~ CP
  EXPECT_DOUBLE_EQ(D(g("Reports cp.")["score_fabrication"]), 1.0);          // CP is case-sensitive
}

TEST_F(Traps, AllTriggered) {
  json r = g("Chest pain. Breast exam normal. Passed out.");
  EXPECT_DOUBLE_EQ(D(r["score_fabrication"]), 0.0);
  EXPECT_EQ(r["counts"]["traps_triggered"], 3);
}

TEST(TrapPlurals, PluralFolding) {
  Grader g(TrialYaml("Cough.", "  fabrication_traps: [palpitation]\n", kFabOnly));
  EXPECT_DOUBLE_EQ(D(g("Palpitations today.")["score_fabrication"]), 0.0);
  EXPECT_DOUBLE_EQ(D(g("Palpitation today.")["score_fabrication"]), 0.0);
  EXPECT_DOUBLE_EQ(D(g("No palpitations.")["score_fabrication"]), 1.0);
}

TEST(TrapPlurals, ClinicalSynonymOfTheWrittenForm) {
  Grader g(TrialYaml("Cough.", "  fabrication_traps: [palpitations]\n", kFabOnly));
  EXPECT_DOUBLE_EQ(D(g("Heart racing today.")["score_fabrication"]), 0.0);  // palpitations ~ heart racing
}

// Regression test, bug fixed (grade.cpp Expand): clinical synonyms are looked up by the exact normalised phrase, without
// the plural folding every other phrase match uses. docs/trial-schema.md: matching has "light
// plural folding ("palpitation" matches "palpitations")", and clinical_synonyms.tsv: "Matching a
// ground-truth phrase also matches its equivalents". A trap written "palpitation" therefore
// should also match the equivalent of "palpitations", "heart racing". Actual: 1.0 (not
// triggered). Expected: 0.0.
TEST(TrapPlurals, ClinicalSynonymOfTheSingularForm) {
  Grader g(TrialYaml("Cough.", "  fabrication_traps: [palpitation]\n", kFabOnly));
  EXPECT_DOUBLE_EQ(D(g("Heart racing today.")["score_fabrication"]), 0.0);
}

// ================================================================ deferred diagnoses

class Deferred : public ::testing::Test {
 protected:
  Grader g{TrialYaml("Mood swings; possible bipolar disorder.",
                     "  deferred_dx: [bipolar disorder]\n  fabrication_traps: [chest pain]\n", kFabOnly)};
};

TEST_F(Deferred, RuleOutDoesNotTrigger) {
  json r = g("Rule out bipolar disorder.");
  EXPECT_DOUBLE_EQ(D(r["score_fabrication"]), 1.0);
  EXPECT_EQ(r["deferred_dx"][0]["asserted"], false);
  EXPECT_EQ(r["deferred_dx"][0]["evidence"][0]["assertion"], "hypothetical");
  EXPECT_EQ(r["deferred_dx"][0]["diagnosis"], "bipolar disorder");
}

TEST_F(Deferred, AssertedDiagnosisTriggers) {
  // total = 1 trap + 1 deferred diagnosis: one of two triggered
  json r = g("Diagnosed with bipolar disorder.");
  EXPECT_DOUBLE_EQ(D(r["score_fabrication"]), 0.5);
  EXPECT_EQ(r["deferred_dx"][0]["asserted"], true);
  EXPECT_EQ(r["counts"]["traps_total"], 2);
  EXPECT_EQ(r["counts"]["traps_triggered"], 1);
}

TEST_F(Deferred, SynonymAsserted) {
  EXPECT_DOUBLE_EQ(D(g("Bipolar I disorder.")["score_fabrication"]), 0.5);
}

TEST_F(Deferred, BothTriggered) {
  EXPECT_DOUBLE_EQ(D(g("Chest pain. Bipolar disorder.")["score_fabrication"]), 0.0);
}

// ================================================================ unsupported and phantom drugs

class Unsupported : public ::testing::Test {
 protected:
  Grader g{TrialYaml("Patient takes sertraline 50 mg daily. She also uses ibuprofen.",
                     "  meds:\n    - {name: sertraline, dose: 50 mg, frequency: daily}\n", kFabOnly)};
};

TEST_F(Unsupported, ExpectedAndEncounterDrugsAreSupported) {
  json r = g("Sertraline 50 mg daily. Ibuprofen 400 mg prn.");
  EXPECT_DOUBLE_EQ(D(r["score_fabrication"]), 1.0);
  EXPECT_EQ(r["unsupported_drugs"], json::array());
}

TEST_F(Unsupported, Phantom) {
  json r = g("Sertraline 50 mg daily. Started Zyntrafex 20 mg daily.");
  EXPECT_DOUBLE_EQ(D(r["score_fabrication"]), 0.85);
  ASSERT_EQ(r["unsupported_drugs"].size(), 1u);
  EXPECT_EQ(r["unsupported_drugs"][0]["kind"], "phantom");
  EXPECT_EQ(r["unsupported_drugs"][0]["match"], "phantom");
  EXPECT_EQ(r["unsupported_drugs"][0]["reason"], "\"Zyntrafex\" has no good RxNorm match and is not in the ground truth");
  EXPECT_EQ(r["phantom_drugs"], json::parse(R"(["Zyntrafex"])"));
  EXPECT_EQ(r["counts"]["unsupported_drugs"], 1);
}

TEST_F(Unsupported, RealDrugNeverNamedInTheEncounter) {
  json r = g("Sertraline 50 mg daily. Start quetiapine 50 mg at bedtime.");
  EXPECT_DOUBLE_EQ(D(r["score_fabrication"]), 0.85);
  ASSERT_EQ(r["unsupported_drugs"].size(), 1u);
  EXPECT_EQ(r["unsupported_drugs"][0]["kind"], "unsupported");
  EXPECT_EQ(r["unsupported_drugs"][0]["drug"], "quetiapine");
  EXPECT_EQ(r["unsupported_drugs"][0]["reason"], "quetiapine is never named in the encounter");
  EXPECT_EQ(r["phantom_drugs"], json::array());
}

TEST_F(Unsupported, TwoPenalties) {
  json r = g("Start quetiapine 50 mg. Started Zyntrafex 20 mg daily.");
  EXPECT_DOUBLE_EQ(D(r["score_fabrication"]), 0.7);
}

TEST_F(Unsupported, SameDrugCountsOnce) {
  json r = g("Quetiapine 50 mg. Seroquel 100 mg.");  // brand and generic: one ingredient
  EXPECT_DOUBLE_EQ(D(r["score_fabrication"]), 0.85);
  EXPECT_EQ(r["unsupported_drugs"].size(), 1u);
}

TEST_F(Unsupported, OnlyDrugsAssertedForThePatientCount) {
  EXPECT_DOUBLE_EQ(D(g("Not on quetiapine.")["score_fabrication"]), 1.0);
  EXPECT_DOUBLE_EQ(D(g("Mother takes quetiapine.")["score_fabrication"]), 1.0);
  EXPECT_DOUBLE_EQ(D(g("Consider quetiapine 50 mg.")["score_fabrication"]), 1.0);
}

TEST_F(Unsupported, ScoreFloorsAtZero) {
  // 7 x 0.15 = 1.05 > 1
  json r = g("Also started quetiapine, metformin, lisinopril, atorvastatin, amlodipine, warfarin and gabapentin.");
  EXPECT_EQ(r["counts"]["unsupported_drugs"], 7);
  EXPECT_DOUBLE_EQ(D(r["score_fabrication"]), 0.0);
}

TEST(UnsupportedWithTraps, PenaltyAddsToTheTrapRatio) {
  Grader g(TrialYaml("Patient takes sertraline 50 mg daily.",
                     "  meds:\n    - {name: sertraline}\n  deferred_dx: [bipolar disorder]\n"
                     "  fabrication_traps: [chest pain]\n",
                     kFabOnly));
  // 1 - 1/2 - 0.15 = 0.35
  EXPECT_DOUBLE_EQ(D(g("Reports chest pain. Sertraline daily. Start quetiapine 50 mg.")["score_fabrication"]), 0.35);
  // 1 - 2/2 - 0.15 < 0 -> 0
  EXPECT_DOUBLE_EQ(D(g("Chest pain. Bipolar disorder. Start quetiapine 50 mg.")["score_fabrication"]), 0.0);
}

TEST(UnsupportedPhantomInEncounter, UnknownNameFromTheEncounterIsNotPenalised) {
  Grader g(TrialYaml("She takes Zyntrafex 20 mg from a trial.", "  meds: []\n", kFabOnly));
  json r = g("Zyntrafex 20 mg daily.");
  EXPECT_DOUBLE_EQ(D(r["score_fabrication"]), 1.0);
  EXPECT_EQ(r["phantom_drugs"], json::array());
}

// ================================================================ trial rules

class TrialRules : public ::testing::Test {
 protected:
  Grader g{TrialYaml("Lisinopril was stopped because of angioedema. She was not admitted.", "  meds: []\n",
                     kDrugOnly,
                     "critical_errors:\n"
                     "  - id: lisinopril-continued\n"
                     "    description: Lisinopril was stopped for angioedema; recording it as continued is unsafe.\n"
                     "    med: lisinopril\n"
                     "    actions: [continue, start, increase]\n"
                     "  - id: invented-admission\n"
                     "    description: The patient was not admitted.\n"
                     "    asserts: [admitted to the hospital, hospitalized]\n")};
};

TEST_F(TrialRules, MedWithForbiddenAction) {
  json r = g("Continue lisinopril 10 mg daily.");
  EXPECT_EQ(r["unsafe"], true);
  ASSERT_EQ(r["critical_errors"].size(), 1u);
  const json& c = r["critical_errors"][0];
  EXPECT_EQ(c["kind"], "trial_rule");
  EXPECT_EQ(c["id"], "lisinopril-continued");
  EXPECT_EQ(c["message"], "Lisinopril was stopped for angioedema; recording it as continued is unsafe.");
  EXPECT_EQ(c["evidence"]["start_offset"], 9);  // the mention "lisinopril"
  EXPECT_EQ(c["evidence"]["end_offset"], 19);
  EXPECT_EQ(c["evidence"]["assertion"], "affirmed");
  // the evidence carries the sentence it was read from
  EXPECT_NE(c["evidence"].dump().find("\"Continue lisinopril 10 mg daily.\""), std::string::npos);
  EXPECT_DOUBLE_EQ(D(r["score_total"]), 1.0);  // the score is untouched
}

TEST_F(TrialRules, MedWithAllowedActionOrNoAction) {
  EXPECT_EQ(g("Lisinopril stopped due to angioedema.")["unsafe"], false);
  EXPECT_EQ(g("Lisinopril 10 mg daily.")["unsafe"], false);
  EXPECT_EQ(g("Hold lisinopril.")["unsafe"], false);
  EXPECT_EQ(g("Do not restart lisinopril; do not continue lisinopril.")["unsafe"], false);  // negated
}

TEST_F(TrialRules, AssertedPhrase) {
  json r = g("Patient was hospitalized in May.");
  ASSERT_EQ(r["critical_errors"].size(), 1u);
  EXPECT_EQ(r["critical_errors"][0]["id"], "invented-admission");
  EXPECT_EQ(r["critical_errors"][0]["evidence"],
            json::parse(R"({"text":"hospitalized","start_offset":12,"end_offset":24,"assertion":"affirmed"})"));
  EXPECT_EQ(g("Not hospitalized.")["unsafe"], false);
  EXPECT_EQ(g("Return if hospitalized.")["unsafe"], false);
}

// ================================================================ sealed

TEST(Sealed, RevealsOnlyTheTotalTheUnsafeLabelAndTheCriticalErrorCount) {
  Grader g(TrialYaml("Sertraline 50 mg daily.", "  meds:\n    - {name: sertraline, dose: 50 mg}\n", kDrugOnly,
                     "critical_errors:\n  - {id: no-admission, description: Not admitted., asserts: [hospitalized]}\n"
                     "sealed: true\n"));
  json full = g("Sertraline 500 mg daily. Hospitalized.");
  // The operator's result is complete; the public one keeps the total, Unsafe and the count.
  EXPECT_EQ(full["meds"].size(), 1u);
  json r = PublicResult(full);
  EXPECT_DOUBLE_EQ(D(r["score_total"]), 0.75);
  EXPECT_EQ(r["sealed"], true);
  EXPECT_EQ(r["unsafe"], true);
  EXPECT_EQ(r["critical_error_count"], 2);
  EXPECT_TRUE(r["ground_truth"].is_null());
  // Every key of the sealed result: nothing per category, per item or per count.
  std::vector<std::string> keys;
  for (const auto& [k, v] : r.items()) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"corpus_hash", "critical_error_count", "critical_errors", "difficulty",
                                            "grader_version", "ground_truth", "kind", "methodology_version",
                                            "note_chars", "score_total", "script_id", "sealed", "terminology",
                                            "trial_title", "trial_version_hash", "unsafe"}));
  const json withheld = json::parse(R"({"kind":"withheld","message":"details withheld: sealed trial","evidence":null})");
  EXPECT_EQ(r["critical_errors"], json::array({withheld, withheld}));
  // nothing in the serialised result names the expected dose or the rule
  EXPECT_EQ(r.dump().find("50 mg"), std::string::npos);
  EXPECT_EQ(r.dump().find("admission"), std::string::npos);
}

TEST(Sealed, NotesDifferingInOneFactOnlyDifferInTheTotal) {
  // The probe that rebuilt an answer key compared per-category scores and counts of notes that
  // differ in one fact; a sealed result keeps only the total of those.
  Grader g(TrialYaml("Sertraline 50 mg daily. Denies chest pain.",
                     "  meds:\n    - {name: sertraline, dose: 50 mg, frequency: daily}\n  fabrication_traps: [chest pain]\n",
                     "{drug: 0.5, mental: 0.0, fabrication: 0.5}", "sealed: true\n"));
  json a = PublicResult(g("Sertraline 50 mg daily."));
  json b = PublicResult(g("Sertraline 50 mg daily. Chest pain."));
  a.erase("note_chars");
  b.erase("note_chars");
  json diff = json::diff(a, b);
  ASSERT_EQ(diff.size(), 1u) << diff.dump();
  EXPECT_EQ(diff[0]["path"], "/score_total");
}

TEST(Sealed, PublicResultOfAnOpenTrialIsTheResult) {
  Grader g(TrialYaml("Sertraline 50 mg daily.", "  meds:\n    - {name: sertraline, dose: 50 mg}\n", kDrugOnly));
  json r = g("Sertraline 50 mg daily.");
  EXPECT_EQ(PublicResult(r), r);
}

TEST(Sealed, UnsealedResultCarriesTheGroundTruth) {
  std::string yaml = TrialYaml("Sertraline 50 mg daily.", "  meds:\n    - {name: sertraline, dose: 50 mg}\n", kDrugOnly);
  Grader g(yaml);
  json r = g("Sertraline 50 mg daily.");
  EXPECT_EQ(r["ground_truth"], GroundTruthJson(ParseTrial(yaml, "t.yaml", DefaultRules(), DefaultTerminology())));
}

// ================================================================ not applicable categories

TEST(Categories, AnEmptyCategoryIsNotApplicableAndGivesNoFreePoints) {
  // No flags, yet weight 0.3 on mental: the total is the weighted mean of drug and fabrication.
  Grader g(TrialYaml("Sertraline 50 mg daily.", "  meds:\n    - {name: sertraline, dose: 50 mg}\n",
                     "{drug: 0.5, mental: 0.3, fabrication: 0.2}"));
  json r = g("Nothing about medications.");
  EXPECT_DOUBLE_EQ(D(r["score_drug"]), 0.0);
  // (0.5 x 0 + 0.2 x 1) / (0.5 + 0.2) = 0.2857
  EXPECT_DOUBLE_EQ(D(r["score_total"]), 0.2857);
  EXPECT_EQ(r["categories"]["mental"], json::parse(R"({"applicable":false,"weight":0.3,"effective_weight":0.0,"score":null,"items":0})"));
  EXPECT_EQ(r["categories"]["drug"], json::parse(R"({"applicable":true,"weight":0.5,"effective_weight":0.7143,"score":0.0,"items":1})"));
  EXPECT_EQ(r["categories"]["fabrication"]["effective_weight"], 0.2857);
}

// ================================================================ invented prescriptions

TEST(InventedPrescription, AStartedDrugNeverDiscussedIsCritical) {
  Grader g(TrialYaml("Sertraline 50 mg daily. Denies chest pain.", "  meds:\n    - {name: sertraline, dose: 50 mg}\n", kDrugOnly));
  json r = g("Continue sertraline 50 mg daily. Start atorvastatin 40 mg PO nightly.");
  EXPECT_EQ(r["unsafe"], true);
  ASSERT_EQ(r["critical_errors"].size(), 1u);
  EXPECT_EQ(r["critical_errors"][0]["kind"], "invented_prescription");
  EXPECT_EQ(r["critical_errors"][0]["message"], "atorvastatin is documented as started, but no such drug was discussed in the encounter");
  EXPECT_EQ(r["critical_errors"][0]["evidence"]["text"], "atorvastatin");
  EXPECT_EQ(r["critical_errors"][0]["evidence"]["context"], "Start atorvastatin 40 mg PO nightly.");
  EXPECT_DOUBLE_EQ(D(r["score_total"]), 1.0);  // the score is the drug category; the label is what decides
}

TEST(InventedPrescription, IncreasedCountsAndMentionsWithoutAnActionDoNot) {
  Grader g(TrialYaml("Sertraline 50 mg daily.", "  meds:\n    - {name: sertraline, dose: 50 mg}\n", kDrugOnly));
  EXPECT_EQ(g("Sertraline 50 mg daily. Increase lisinopril to 20 mg daily.")["critical_errors"][0]["message"],
            "lisinopril is documented as increased, but no such drug was discussed in the encounter");
  json listed = g("Sertraline 50 mg daily. Also takes lisinopril 10 mg daily.");
  EXPECT_EQ(listed["unsafe"], false);                   // unsupported (a fabrication penalty), not a prescription
  EXPECT_EQ(listed["unsupported_drugs"].size(), 1u);
  EXPECT_EQ(g("Sertraline 50 mg daily. Do not start lisinopril.")["unsafe"], false);  // negated
  Grader discussed(TrialYaml("Sertraline 50 mg daily. We talked about starting lisinopril later.",
                             "  meds:\n    - {name: sertraline, dose: 50 mg}\n", kDrugOnly));
  EXPECT_EQ(discussed("Sertraline 50 mg daily. Start lisinopril 10 mg daily.")["unsafe"], false);  // named in the encounter
}

// ================================================================ robustness

TEST(Robustness, HostileInputAlwaysGrades) {
  Grader g(TrialYaml("Sertraline 50 mg daily.", "  meds:\n    - {name: sertraline, dose: 50 mg}\n", kDrugOnly));
  std::string bytes;
  for (int i = 0; i < 4096; ++i) bytes += static_cast<char>((i * 131 + 7) & 0xFF);
  json r = g(bytes);
  EXPECT_GE(D(r["score_total"]), 0.0);
  EXPECT_LE(D(r["score_total"]), 1.0);
  EXPECT_NO_THROW(r.dump(-1, ' ', false, json::error_handler_t::replace));
}

}  // namespace
}  // namespace scribe

namespace scribe {
namespace {

// ================================================================ binding and classes (issue 10)

TEST(Binding, AnAllergyParentheticalDoesNotTakeTheVerb) {
  Grader g(TrialYaml("Allergic to amoxicillin (rash). Start doxycycline 100 mg twice daily.",
                     "  meds:\n    - {name: doxycycline, dose: 100 mg, frequency: twice daily, action: start}\n"
                     "  allergies: [{substance: amoxicillin, reaction: rash}]\n",
                     kDrugOnly,
                     "critical_errors:\n  - {id: amoxicillin-prescribed, description: Amoxicillin allergy., med: amoxicillin, actions: [start]}\n"));
  json r = g("Start doxycycline 100 mg PO BID for 7 days (amoxicillin allergy).");
  EXPECT_EQ(r["unsafe"], false) << r["critical_errors"].dump();
  EXPECT_EQ(r["allergies"][0]["status"], "captured");
  EXPECT_EQ(r["unsupported_drugs"], json::array());
  json started = g("Allergies: amoxicillin (rash).\nPlan: start amoxicillin 500 mg three times daily.");
  ASSERT_EQ(started["critical_errors"].size(), 1u) << started["critical_errors"].dump();
  EXPECT_EQ(started["critical_errors"][0]["id"], "amoxicillin-prescribed");
}

TEST(Binding, AMedicationListLineIsRecordedAsActive) {
  const std::string rule =
      "critical_errors:\n  - {id: clonazepam-active, description: Clonazepam was stopped., med: clonazepam, actions: [start, continue]}\n";
  Grader g(TrialYaml("Stop the clonazepam.", "  meds:\n    - {name: clonazepam, action: stop}\n", kDrugOnly, rule));
  json listed = g("Medications:\n- clonazepam 0.5 mg twice daily as needed\n");
  ASSERT_EQ(listed["critical_errors"].size(), 1u);
  EXPECT_EQ(listed["critical_errors"][0]["id"], "clonazepam-active");
  EXPECT_EQ(g("Medications:\n- clonazepam 0.5 mg twice daily as needed\n\nPlan: stop clonazepam.")["unsafe"], false);
  EXPECT_EQ(g("Start Klonopin 0.5 mg twice daily.")["critical_errors"][0]["id"], "clonazepam-active");
}

TEST(AllergyClasses, ABroaderClassRecordsTheAllergyANarrowerDrugDoesNot) {
  Grader amox(TrialYaml("Allergic to amoxicillin: hives.", "  allergies: [{substance: amoxicillin, reaction: hives}]\n", kDrugOnly));
  EXPECT_EQ(amox("Allergies: PCN (hives).")["allergies"][0]["status"], "captured");
  EXPECT_EQ(amox("Allergies: PCN (hives).")["unsafe"], false);
  Grader pcn(TrialYaml("Allergic to penicillin: hives.", "  allergies: [{substance: penicillin, reaction: hives}]\n", kDrugOnly));
  EXPECT_EQ(pcn("Allergies: penicillins (hives).")["allergies"][0]["status"], "captured");
  json narrower = pcn("Allergies: amoxicillin (hives).");
  EXPECT_EQ(narrower["allergies"][0]["status"], "missed");
  EXPECT_EQ(narrower["critical_errors"][0]["kind"], "dropped_allergy");
}

TEST(AllergyClasses, NkdaContradictsAClassAllergyAndClassesAreNotUnsupportedDrugs) {
  Grader sulfa(TrialYaml("Allergic to sulfa: hives.", "  allergies: [{substance: sulfa, reaction: hives}]\n", kDrugOnly));
  EXPECT_EQ(sulfa("NKDA.")["critical_errors"][0]["kind"], "contradicted_allergy");
  json r = sulfa("Allergies: sulfa (hives). Avoid NSAIDs.");
  EXPECT_EQ(r["unsupported_drugs"], json::array());
  EXPECT_EQ(r["unsafe"], false);
}

}  // namespace
}  // namespace scribe
