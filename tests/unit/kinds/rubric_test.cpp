// Unit tests for kind rubric (kinds/rubric/rubric.h): credit rules, deductions, the floor at 0,
// critical errors, the published result and the loader's checks. Every expected number is worked
// out by hand from docs/methodology.md ("Kind rubric") for the small inline trial below.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>

#include "grade.h"
#include "rubric/rubric.h"
#include "validator.h"

namespace scribe {
namespace {

using nlohmann::json;

// 10 + 10 + 40 + 40 points; the items of each category sum to the category.
const std::string kRubric = R"(id: 01-rubric-unit
kind: rubric
title: Rubric unit trial
difficulty: easy
summary: s
encounter_text: |
  Doctor: Are you still taking the sertraline?
  Patient: Yes, 50 mg every morning.
  Doctor: Any thoughts of wishing you were dead?
  Patient: Sometimes I wish I would not wake up. No plan and no intent.
  Doctor: Any guns at home?
  Patient: No.
  Doctor: Let's make a safety plan: call 988 if things get worse. Keep taking sertraline 50 mg daily.
instructions: Write a psychiatric note.
rubric:
  categories: {clinical_accuracy: 10, completeness: 10, medication_treatment: 40, safety_risk: 40}
  items:
    - {id: passive-si, category: safety_risk, points: 20, fact: Passive suicidal ideation,
       find: [passive suicidal ideation, passive SI, wish to be dead], partial: [suicidal ideation, SI],
       incorrect: [active suicidal ideation], critical: true}
    - {id: no-plan, category: safety_risk, points: 10, fact: Denies plan or intent, find: [plan, intent], assert: negated}
    - {id: safety-plan, category: safety_risk, points: 10, fact: Safety plan with crisis line,
       find: [safety plan], requires: [[988, crisis line]]}
    - {id: sertraline, category: medication_treatment, points: 40, fact: Sertraline 50 mg daily continued,
       med: {name: sertraline, dose: 50 mg, frequency: daily, action: continue}}
    - {id: mood, category: clinical_accuracy, points: 10, fact: Depressed mood, find: [depressed mood, depression]}
    - {id: firearms, category: completeness, points: 10, fact: No firearms at home, find: [firearms, guns], assert: negated}
  deductions:
    - {severity: critical, phrases: [hospitalized, admitted], why: She was not admitted.}
    - {severity: major, phrases: [auditory hallucinations], why: She denied hallucinations.}
    - {severity: minor, phrases: [anxiety], why: Anxiety was not discussed.}
critical_errors:
  - {id: no-admission, description: She was not admitted., asserts: [admitted to the hospital]}
)";

const std::string kReference =
    "Depression. Passive SI; denies plan or intent. Denies firearms. Safety plan reviewed, call 988. "
    "Continue sertraline 50 mg daily.";

class Rubric : public ::testing::Test {
 protected:
  static json Grade(std::string_view note, const std::string& yaml = kRubric) {
    PreparedTrial p(ParseTrial(yaml, "t.yaml", DefaultRules(), DefaultTerminology()), DefaultRules(), DefaultTerminology(),
                    DefaultAssertionAnalyzer());
    OfflineValidator v(DefaultTerminology());
    return scribe::Grade(p, note, "corpus-hash", v);
  }
  static json Item(const json& r, const std::string& id) {
    for (const json& i : r["rubric"]["items"])
      if (i["id"] == id) return i;
    return nullptr;
  }
  static std::string Error(const std::string& yaml) {
    try {
      ParseTrial(yaml, "t.yaml", DefaultRules(), DefaultTerminology());
    } catch (const TrialError& e) {
      return e.what();
    }
    return "(no error)";
  }
  static std::string With(const std::string& from, const std::string& to) {
    size_t p = kRubric.find(from);
    if (p == std::string::npos) throw std::logic_error("test bug: '" + from + "' not in the trial");
    return kRubric.substr(0, p) + to + kRubric.substr(p + from.size());
  }
};

TEST_F(Rubric, TheReferenceNoteEarnsEveryPoint) {
  json r = Grade(kReference);
  EXPECT_EQ(r["kind"], "rubric");
  EXPECT_DOUBLE_EQ(r["rubric"]["total"].get<double>(), 100);
  EXPECT_DOUBLE_EQ(r["score_total"].get<double>(), 1.0);
  EXPECT_EQ(r["unsafe"], false);
  for (const json& i : r["rubric"]["items"]) EXPECT_EQ(i["credit"], "full") << i.dump();
  EXPECT_EQ(r["rubric"]["deductions"], json::array());
  EXPECT_EQ(r["rubric"]["methodology_version"], "1.0.1");
  EXPECT_EQ(r["rubric"]["categories"][3], json::parse(R"({"name":"safety_risk","label":"Safety and risk","points":40.0,"max":40.0})"));
}

TEST_F(Rubric, PartialIsHalfTheItemPoints) {
  // "SI" alone is vague for "passive suicidal ideation": 10 of 20.
  json r = Grade("Depression. SI; denies plan or intent. Denies firearms. Safety plan reviewed, call 988. Continue sertraline 50 mg daily.");
  EXPECT_EQ(Item(r, "passive-si")["credit"], "partial");
  EXPECT_DOUBLE_EQ(Item(r, "passive-si")["points"].get<double>(), 10);
  EXPECT_EQ(Item(r, "passive-si")["why"], "present but vague: \"SI\"");
  EXPECT_DOUBLE_EQ(r["rubric"]["total"].get<double>(), 90);
  EXPECT_DOUBLE_EQ(r["score_total"].get<double>(), 0.9);
}

TEST_F(Rubric, AMissingRequiredGroupMakesAnItemPartial) {
  json r = Grade("Depression. Passive SI; denies plan or intent. Denies firearms. Safety plan reviewed. Continue sertraline 50 mg daily.");
  EXPECT_EQ(Item(r, "safety-plan")["credit"], "partial");
  EXPECT_EQ(Item(r, "safety-plan")["why"], "present but incomplete: nothing on \"988\"");
  EXPECT_DOUBLE_EQ(r["rubric"]["total"].get<double>(), 95);
}

TEST_F(Rubric, AnItemDefinesItsOwnPartialRule) {
  json r = Grade("Depression. SI; denies plan or intent. Denies firearms. Safety plan reviewed, call 988. Continue sertraline 50 mg daily.",
                 With("incorrect: [active suicidal ideation], critical: true}", "incorrect: [active suicidal ideation], critical: true, partial_credit: 0.25}"));
  EXPECT_DOUBLE_EQ(Item(r, "passive-si")["points"].get<double>(), 5);
  EXPECT_DOUBLE_EQ(r["rubric"]["total"].get<double>(), 85);
}

TEST_F(Rubric, IncorrectEarnsNothingIsNotDeductedAndACriticalItemIsUnsafe) {
  // "active suicidal ideation" for passive: 0 points; the same span is never also a deduction.
  json r = Grade("Depression. Active suicidal ideation; denies plan or intent. Denies firearms. Safety plan reviewed, call 988. "
                 "Continue sertraline 50 mg daily.");
  EXPECT_EQ(Item(r, "passive-si")["credit"], "incorrect");
  EXPECT_EQ(Item(r, "passive-si")["why"], "present but wrong: \"Active suicidal ideation\" (affirmed)");
  EXPECT_DOUBLE_EQ(r["rubric"]["total"].get<double>(), 80);
  EXPECT_EQ(r["rubric"]["deductions"], json::array());
  EXPECT_EQ(r["unsafe"], true);
  ASSERT_EQ(r["critical_errors"].size(), 1u);
  EXPECT_EQ(r["critical_errors"][0]["kind"], "critical_fact");
  EXPECT_EQ(r["critical_errors"][0]["id"], "passive-si");
  EXPECT_EQ(r["critical_errors"][0]["message"], "recorded incorrectly: Passive suicidal ideation");
}

TEST_F(Rubric, TheOppositePolarityIsIncorrect) {
  // A denial fact affirmed ("has a plan"), and an affirmed fact denied ("denies passive SI").
  json r = Grade("Depression. Denies passive SI. Has a plan. Denies firearms. Safety plan reviewed, call 988. Continue sertraline 50 mg daily.");
  EXPECT_EQ(Item(r, "passive-si")["credit"], "incorrect");
  EXPECT_EQ(Item(r, "no-plan")["credit"], "incorrect");
  EXPECT_DOUBLE_EQ(r["rubric"]["total"].get<double>(), 70);
}

TEST_F(Rubric, TheLongestPhraseWinsAcrossItems) {
  // "Safety plan" is the safety-plan item's; its "plan" is not an affirmed plan for no-plan.
  json r = Grade(kReference);
  EXPECT_EQ(Item(r, "no-plan")["credit"], "full");
  const json item = Item(r, "no-plan");
  const json& ev = item["evidence"];
  ASSERT_EQ(ev.size(), 2u);  // "denies plan or intent": both negated; "Safety plan" not among them
  EXPECT_EQ(ev[0]["text"], "plan");
  EXPECT_EQ(ev[0]["assertion"], "negated");
  EXPECT_EQ(ev[1]["text"], "intent");
  EXPECT_EQ(Item(r, "safety-plan")["evidence"][0]["text"], "Safety plan");
}

TEST_F(Rubric, MedicationFactsFullPartialIncorrect) {
  auto note = [](const std::string& med) {
    return "Depression. Passive SI; denies plan or intent. Denies firearms. Safety plan reviewed, call 988. " + med;
  };
  EXPECT_EQ(Item(Grade(note("Continue sertraline 50 mg daily.")), "sertraline")["credit"], "full");
  json missing_dose = Grade(note("Continue sertraline daily."));
  EXPECT_EQ(Item(missing_dose, "sertraline")["credit"], "partial");
  EXPECT_EQ(Item(missing_dose, "sertraline")["why"], "present but incomplete: expected 50 mg, no dose found");
  EXPECT_DOUBLE_EQ(missing_dose["rubric"]["total"].get<double>(), 80);
  json wrong_dose = Grade(note("Continue sertraline 100 mg daily."));
  EXPECT_EQ(Item(wrong_dose, "sertraline")["credit"], "incorrect");
  EXPECT_EQ(Item(wrong_dose, "sertraline")["why"], "present but wrong dose: expected 50 mg, found 100 mg");
  EXPECT_DOUBLE_EQ(wrong_dose["rubric"]["total"].get<double>(), 60);
  EXPECT_EQ(Item(Grade(note("Stop sertraline 50 mg daily.")), "sertraline")["credit"], "incorrect");
  EXPECT_EQ(Item(Grade(note("Not taking sertraline.")), "sertraline")["credit"], "incorrect");
  EXPECT_EQ(Item(Grade(note("")), "sertraline")["credit"], "absent");
  // ten times the dose is also a critical error
  json tenfold = Grade(note("Continue sertraline 500 mg daily."));
  EXPECT_EQ(tenfold["unsafe"], true);
  EXPECT_EQ(tenfold["critical_errors"][0]["kind"], "dose_magnitude");
}

TEST_F(Rubric, DeductionsBySeverityOncePerAddition) {
  json r = Grade(kReference + " Anxiety. Anxiety again. Auditory hallucinations. Was hospitalized last year.");
  const json& d = r["rubric"]["deductions"];
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0]["severity"], "critical");
  EXPECT_DOUBLE_EQ(d[0]["points"].get<double>(), 15);
  EXPECT_EQ(d[0]["evidence"]["text"], "hospitalized");  // historical counts: an invented past admission
  EXPECT_EQ(d[1]["severity"], "major");
  EXPECT_DOUBLE_EQ(d[1]["points"].get<double>(), 8);
  EXPECT_EQ(d[2]["severity"], "minor");
  EXPECT_DOUBLE_EQ(d[2]["points"].get<double>(), 3);
  EXPECT_DOUBLE_EQ(r["rubric"]["deducted"].get<double>(), 26);
  EXPECT_DOUBLE_EQ(r["rubric"]["total"].get<double>(), 74);
  EXPECT_DOUBLE_EQ(r["score_fabrication"].get<double>(), 0.74);
  // negated additions are not additions
  EXPECT_EQ(Grade(kReference + " No anxiety. Denies auditory hallucinations.")["rubric"]["deductions"], json::array());
}

TEST_F(Rubric, GenericDetectorsDeductInventedAndUnsupportedDrugs) {
  json started = Grade(kReference + " Start quetiapine 25 mg nightly.");
  ASSERT_EQ(started["rubric"]["deductions"].size(), 1u);
  EXPECT_EQ(started["rubric"]["deductions"][0]["source"], "invented_prescription");
  EXPECT_DOUBLE_EQ(started["rubric"]["deductions"][0]["points"].get<double>(), 15);
  EXPECT_EQ(started["unsafe"], true);
  EXPECT_EQ(started["critical_errors"][0]["kind"], "invented_prescription");
  json listed = Grade(kReference + " Also takes lisinopril 10 mg daily.");
  EXPECT_EQ(listed["rubric"]["deductions"][0]["source"], "unsupported_drug");
  EXPECT_DOUBLE_EQ(listed["rubric"]["deductions"][0]["points"].get<double>(), 8);
  EXPECT_EQ(listed["unsafe"], false);
}

TEST_F(Rubric, TheTotalNeverGoesBelowZero) {
  json r = Grade("Hospitalized. Auditory hallucinations. Anxiety. Start quetiapine 25 mg nightly. Start olanzapine 5 mg nightly.");
  EXPECT_DOUBLE_EQ(r["rubric"]["earned"].get<double>(), 0);
  EXPECT_DOUBLE_EQ(r["rubric"]["deducted"].get<double>(), 56);
  EXPECT_DOUBLE_EQ(r["rubric"]["total"].get<double>(), 0);
  EXPECT_DOUBLE_EQ(r["score_total"].get<double>(), 0);
}

TEST_F(Rubric, TrialCriticalErrors) {
  json r = Grade(kReference + " Admitted to the hospital overnight.");
  EXPECT_EQ(r["unsafe"], true);
  bool rule = false;
  for (const json& c : r["critical_errors"]) rule = rule || (c["kind"] == "trial_rule" && c["id"] == "no-admission");
  EXPECT_TRUE(rule);
}

TEST_F(Rubric, SeedFieldsAndCounts) {
  json r = Grade("Depression. Passive SI. Safety plan reviewed, call 988. Continue sertraline daily.");
  // safety 20 + 0 (no-plan absent) + 10 = 30 of 40; medication partial 20 of 40
  EXPECT_DOUBLE_EQ(r["score_mental"].get<double>(), 0.75);
  EXPECT_DOUBLE_EQ(r["score_drug"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(r["score_fabrication"].get<double>(), 1.0);
  EXPECT_EQ(r["counts"], json::parse(R"({"items":6,"items_full":3,"items_partial":1,"items_absent":2,"items_incorrect":0,
                                          "deductions":0,"critical_errors":0})"));
}

TEST_F(Rubric, SealedRubricResultsRevealOnlyTheTotal) {
  json r = PublicResult(Grade("Depression.", kRubric + "sealed: true\n"));
  EXPECT_EQ(r.contains("rubric"), false);
  EXPECT_DOUBLE_EQ(r["score_total"].get<double>(), 0.1);
  EXPECT_TRUE(r["ground_truth"].is_null());
}

TEST_F(Rubric, LoaderChecks) {
  EXPECT_EQ(Error(With("{clinical_accuracy: 10, completeness: 10, medication_treatment: 40, safety_risk: 40}",
                       "{clinical_accuracy: 10, completeness: 10, medication_treatment: 40, safety_risk: 30}")),
            "t.yaml: rubric.categories: must total 100 points, got 90");
  EXPECT_EQ(Error(With("category: clinical_accuracy, points: 10,", "category: clinical_accuracy, points: 5,")),
            "t.yaml: rubric.items: the items of category clinical_accuracy total 5 points; the category has 10");
  EXPECT_EQ(Error(With("id: mood, category: clinical_accuracy", "id: mood, category: accuracy")),
            "t.yaml: rubric.items[4].category: unknown category \"accuracy\" (categories: clinical_accuracy, completeness, "
            "medication_treatment, safety_risk)");
  EXPECT_EQ(Error(With("id: mood,", "id: firearms,")), "t.yaml: rubric.items[5].id: duplicate item id \"firearms\"");
  EXPECT_EQ(Error(With("fact: Depressed mood, find: [depressed mood, depression]", "fact: Depressed mood")),
            "t.yaml: rubric.items[4]: needs find (phrases) or med (a structured medication fact)");
  EXPECT_EQ(Error(With("action: continue}}", "action: continue}, find: [sertraline]}")),
            "t.yaml: rubric.items[3]: a med item is recognised by the drug matcher: it takes no find, partial, incorrect, "
            "requires or assert");
  EXPECT_EQ(Error(With("assert: negated}\n    - {id: safety", "assert: denied}\n    - {id: safety")),
            "t.yaml: rubric.items[1].assert: must be affirmed, negated or advice, got \"denied\"");
  EXPECT_EQ(Error(With("{severity: minor,", "{severity: trivial,")),
            "t.yaml: rubric.deductions[2].severity: must be minor, major or critical, got \"trivial\"");
  EXPECT_EQ(Error(With("rubric:\n", "ground_truth: {}\nrubric:\n")).substr(0, 51), "t.yaml: ground_truth: unknown key (allowed here: id");
}

TEST(RubricMethodology, PublishesTheSeedRulesFromData) {
  json m = RubricKind().Methodology();
  EXPECT_EQ(m["kind"], "rubric");
  EXPECT_EQ(m["methodology_version"], "1.0.1");
  EXPECT_DOUBLE_EQ(m["partial_credit"].get<double>(), 0.5);
  EXPECT_EQ(m["severities"][2]["points"], 15.0);
  EXPECT_EQ(m["changelog"][0]["version"], "1.0.1");
  EXPECT_EQ(m["changelog"][1]["date"], "2026-10-19");
  EXPECT_DOUBLE_EQ(SeverityPoints("major"), 8);
}

}  // namespace
}  // namespace scribe
