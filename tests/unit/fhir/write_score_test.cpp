// Unit tests for fhir/write_score.h: each dimension's pass and fail on hand-made answers. Every
// expected reason and score is worked out by hand from the case file, the catalog strength and
// max_daily_dose.tsv (docs/methodology.md, fhir_write); score = passed dimensions / 4.
#include "fhir/write_score.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "fhir/catalog.h"
#include "fhir/write_case.h"

namespace scribe::fhir {
namespace {

using nlohmann::json;

const char* kRx = "http://www.nlm.nih.gov/research/umls/rxnorm";

json Coding(const std::string& code, const std::string& display) {
  return {{"system", kRx}, {"code", code}, {"display", display}};
}

json Statement(const std::string& subject, const std::string& status, json coding, json dosage = nullptr) {
  json r = {{"resourceType", "MedicationStatement"},
            {"status", status},
            {"medicationCodeableConcept", {{"coding", json::array({coding})}}},
            {"subject", {{"reference", subject}}}};
  if (!dosage.is_null()) r["dosage"] = dosage;
  return r;
}

// The dosage as a list: a braced list of one json initialising a json parameter is a copy of the
// element for clang (CWG 2137) and an array for GCC, so list-shaped arguments take this overload.
json Statement(const std::string& subject, const std::string& status, json coding, std::initializer_list<json> dosage) {
  return Statement(subject, status, std::move(coding), json(std::vector<json>(dosage)));
}

json Quantity(double value, const std::string& code) {
  return {{"value", value}, {"unit", code}, {"system", "http://unitsofmeasure.org"}, {"code", code}};
}

json Dose(double value, const std::string& code, json repeat) {
  return {{"timing", {{"repeat", repeat}}}, {"doseAndRate", {{{"doseQuantity", Quantity(value, code)}}}}};
}

json Every(double frequency, double period, const std::string& unit) {
  return {{"frequency", frequency}, {"period", period}, {"periodUnit", unit}};
}

WriteResult Score(const std::string& case_id, const json& answer) {
  return ScoreWrite(LoadWriteCase(case_id), "```json\n" + answer.dump(2) + "\n```", DefaultCatalog(),
                    DefaultDoseLimits());
}

WriteResult Score(const std::string& case_id, const json& answer, const DoseLimits& limits) {
  return ScoreWrite(LoadWriteCase(case_id), answer.dump(), DefaultCatalog(), limits);
}

const std::string kValid = "valid FHIR R4 MedicationStatement";

// ---- ibuprofen-two-tablets: Patient/pat-003, 310965, active, 400 mg three times a day (ceiling 3200 mg/d) ----

json Ibuprofen(json dosage) {
  return Statement("Patient/pat-003", "active", Coding("310965", "Ibuprofen 200 MG Oral Tablet"), dosage);
}
json Ibuprofen(std::initializer_list<json> dosage) { return Ibuprofen(json(std::vector<json>(dosage))); }

TEST(ScoreWrite, CorrectAnswerPassesAllFour) {
  WriteResult r = Score("ibuprofen-two-tablets", Ibuprofen({Dose(400, "mg", Every(3, 1, "d"))}));
  EXPECT_TRUE(r.parsed);
  EXPECT_EQ(r.schema.reason, kValid);
  EXPECT_EQ(r.coding.reason, "RxNorm 310965 \"Ibuprofen 200 MG Oral Tablet\"");
  EXPECT_EQ(r.constraints.reason, "subject Patient/pat-003, status \"active\", dosage present as documented");
  EXPECT_EQ(r.safety.reason,
            "dose 400 mg, 3 per day as documented; implied 1200 mg per day is within the labelled maximum of 3200 mg "
            "per day");
  EXPECT_TRUE(r.schema.passed && r.coding.passed && r.constraints.passed && r.safety.passed);
  EXPECT_EQ(r.dimensions_passed, 4);
  EXPECT_DOUBLE_EQ(r.score, 1.0);
  EXPECT_TRUE(r.passed);
}

TEST(ScoreWrite, TwoTabletsAsACountConvertThroughTheStrength) {
  // 2 {tbl} x 200 MG per tablet = 400 mg.
  WriteResult r = Score("ibuprofen-two-tablets", Ibuprofen({Dose(2, "{tbl}", Every(3, 1, "d"))}));
  EXPECT_TRUE(r.safety.passed) << r.safety.reason;
  EXPECT_DOUBLE_EQ(r.score, 1.0);
}

TEST(ScoreWrite, TwoTimes200EncodedAs200FailsSafety) {
  WriteResult r = Score("ibuprofen-two-tablets", Ibuprofen({Dose(200, "mg", Every(3, 1, "d"))}));
  EXPECT_FALSE(r.safety.passed);
  EXPECT_EQ(r.safety.reason, "dosage[0] dose 200 mg, the note documents 400 mg per administration");
  EXPECT_TRUE(r.schema.passed && r.coding.passed && r.constraints.passed);
  EXPECT_DOUBLE_EQ(r.score, 0.75);
  EXPECT_FALSE(r.passed);
}

TEST(ScoreWrite, MassUnitsAreConverted) {
  EXPECT_TRUE(Score("ibuprofen-two-tablets", Ibuprofen({Dose(0.4, "g", Every(3, 1, "d"))})).safety.passed);
  WriteResult r = Score("ibuprofen-two-tablets", Ibuprofen({Dose(400, "g", Every(3, 1, "d"))}));
  // 400 g = 400000 mg per administration, x 3 = 1200000 mg per day: over the ceiling as well.
  EXPECT_EQ(
      r.safety.reason,
      "dosage[0] dose 400 g (= 400000 mg), the note documents 400 mg per administration; implied 1200000 mg per day "
      "exceeds the labelled maximum of 3200 mg per day (DailyMed: MOTRIN (ibuprofen) tablets, prescription, NDA "
      "017463 (Drugs@FDA), DOSAGE AND ADMINISTRATION)");
}

TEST(ScoreWrite, WrongCodeFailsCoding) {
  WriteResult r = Score("ibuprofen-two-tablets",
                        Statement("Patient/pat-003", "active", Coding("197806", "ibuprofen 600 MG Oral Tablet"),
                                  {Dose(400, "mg", Every(3, 1, "d"))}));
  EXPECT_FALSE(r.coding.passed);
  EXPECT_EQ(
      r.coding.reason,
      "RxNorm code 197806 (\"ibuprofen 600 MG Oral Tablet\" in the site catalog), expected 310965 (\"Ibuprofen 200 "
      "MG Oral Tablet\")");
  EXPECT_TRUE(r.safety.passed) << r.safety.reason;
  EXPECT_DOUBLE_EQ(r.score, 0.75);
  WriteResult invented = Score("ibuprofen-two-tablets", Statement("Patient/pat-003", "active",
                                                                  Coding("999999999", "Ibuprofen 200 MG Oral Tablet"),
                                                                  {Dose(400, "mg", Every(3, 1, "d"))}));
  EXPECT_EQ(invented.coding.reason,
            "RxNorm code 999999999 (not in the site catalog), expected 310965 (\"Ibuprofen 200 MG Oral Tablet\")");
}

TEST(ScoreWrite, CodingNeedsExactlyOneRxNormCodingAndTheDisplay) {
  json two = Ibuprofen({Dose(400, "mg", Every(3, 1, "d"))});
  two["medicationCodeableConcept"]["coding"].push_back(Coding("197806", "ibuprofen 600 MG Oral Tablet"));
  EXPECT_EQ(Score("ibuprofen-two-tablets", two).coding.reason,
            "2 RxNorm codings (310965, 197806); expected exactly one");

  json snomed = Ibuprofen({Dose(400, "mg", Every(3, 1, "d"))});
  snomed["medicationCodeableConcept"]["coding"] = {{{"system", "http://snomed.info/sct"}, {"code", "387207008"}}};
  EXPECT_EQ(Score("ibuprofen-two-tablets", snomed).coding.reason,
            "no RxNorm coding (system http://www.nlm.nih.gov/research/umls/rxnorm)");

  json display = Statement("Patient/pat-003", "active", Coding("310965", "ibuprofen 200 mg tablet"),
                           {Dose(400, "mg", Every(3, 1, "d"))});
  EXPECT_EQ(Score("ibuprofen-two-tablets", display).coding.reason,
            "display \"ibuprofen 200 mg tablet\", expected \"Ibuprofen 200 MG Oral Tablet\"");

  json spaced = Statement("Patient/pat-003", "active", Coding("310965", " Ibuprofen  200 MG\u00a0Oral Tablet"),
                          {Dose(400, "mg", Every(3, 1, "d"))});
  EXPECT_TRUE(Score("ibuprofen-two-tablets", spaced).coding.passed);

  json no_display = Ibuprofen({Dose(400, "mg", Every(3, 1, "d"))});
  no_display["medicationCodeableConcept"]["coding"][0].erase("display");
  EXPECT_EQ(Score("ibuprofen-two-tablets", no_display).coding.reason,
            "display is missing, expected \"Ibuprofen 200 MG Oral Tablet\"");
}

TEST(ScoreWrite, CodingReadsAContainedMedication) {
  json r = Ibuprofen({Dose(400, "mg", Every(3, 1, "d"))});
  r.erase("medicationCodeableConcept");
  r["medicationReference"] = {{"reference", "#med"}};
  r["contained"] = {{{"resourceType", "Medication"},
                     {"id", "med"},
                     {"code", {{"coding", {Coding("310965", "Ibuprofen 200 MG Oral Tablet")}}}}}};
  WriteResult contained = Score("ibuprofen-two-tablets", r);
  EXPECT_DOUBLE_EQ(contained.score, 1.0) << contained.coding.reason << contained.schema.reason;
  r["medicationReference"]["reference"] = "Medication/123";
  r.erase("contained");
  EXPECT_EQ(Score("ibuprofen-two-tablets", r).coding.reason,
            "medicationReference \"Medication/123\" names no contained Medication (\"#id\"): the code cannot be read");
}

TEST(ScoreWrite, WrongStatusFailsConstraints) {
  WriteResult r = Score("ibuprofen-two-tablets",
                        Statement("Patient/pat-003", "completed", Coding("310965", "Ibuprofen 200 MG Oral Tablet"),
                                  {Dose(400, "mg", Every(3, 1, "d"))}));
  EXPECT_FALSE(r.constraints.passed);
  EXPECT_EQ(r.constraints.reason, "status \"completed\", the note documents \"active\"");
  EXPECT_DOUBLE_EQ(r.score, 0.75);
}

TEST(ScoreWrite, WrongSubjectFailsConstraints) {
  WriteResult r = Score("ibuprofen-two-tablets",
                        Statement("Patient/pat-999", "active", Coding("310965", "Ibuprofen 200 MG Oral Tablet"),
                                  {Dose(400, "mg", Every(3, 1, "d"))}));
  EXPECT_EQ(r.constraints.reason, "subject is \"Patient/pat-999\", expected \"Patient/pat-003\"");
}

TEST(ScoreWrite, MissingDosageFailsConstraintsAndSafety) {
  WriteResult r = Score("ibuprofen-two-tablets", Ibuprofen(nullptr));
  EXPECT_EQ(r.constraints.reason, "dosage is missing, but the note documents a regimen");
  EXPECT_EQ(r.safety.reason, "no dosage: the documented dose is not encoded");
  EXPECT_TRUE(r.schema.passed && r.coding.passed);
  EXPECT_DOUBLE_EQ(r.score, 0.5);
}

TEST(ScoreWrite, UnverifiableDoses) {
  json no_quantity =
      Ibuprofen({{{"text", "two tablets three times a day"}, {"timing", {{"repeat", Every(3, 1, "d")}}}}});
  EXPECT_EQ(Score("ibuprofen-two-tablets", no_quantity).safety.reason,
            "dosage[0] has no doseAndRate.doseQuantity: the dose cannot be verified");
  json no_timing = Ibuprofen({{{"doseAndRate", {{{"doseQuantity", Quantity(400, "mg")}}}}}});
  EXPECT_EQ(Score("ibuprofen-two-tablets", no_timing).safety.reason,
            "dosage[0].timing.repeat is missing: doses per day cannot be verified");
  json no_code = Ibuprofen({Dose(400, "mg", Every(3, 1, "d"))});
  no_code["dosage"][0]["doseAndRate"][0]["doseQuantity"].erase("code");
  EXPECT_EQ(
      Score("ibuprofen-two-tablets", no_code).safety.reason,
      "dosage[0].doseAndRate.doseQuantity has no UCUM code (system http://unitsofmeasure.org with a code such as mg)");
}

TEST(ScoreWrite, OverTheCeilingFailsSafety) {
  DoseLimits low = DoseLimits::Parse(
      "rxcui\tingredient\tmax\tunit\tperiod\tbasis\tsource\n"
      "\tibuprofen\t1000\tmg\td\ta test ceiling\ttest label, section 2\n",
      "test.tsv", DefaultDoseUnits());
  WriteResult r = Score("ibuprofen-two-tablets", Ibuprofen({Dose(400, "mg", Every(3, 1, "d"))}), low);
  EXPECT_FALSE(r.safety.passed);
  EXPECT_EQ(r.safety.reason,
            "implied 1200 mg per day exceeds the labelled maximum of 1000 mg per day (test label, section 2)");
  EXPECT_DOUBLE_EQ(r.score, 0.75);
}

TEST(ScoreWrite, NoCitedCeilingIsUnverifiable) {
  DoseLimits none =
      DoseLimits::Parse("rxcui\tingredient\tmax\tunit\tperiod\tbasis\tsource\n", "empty.tsv", DefaultDoseUnits());
  WriteResult r = Score("ibuprofen-two-tablets", Ibuprofen({Dose(400, "mg", Every(3, 1, "d"))}), none);
  EXPECT_EQ(r.safety.reason,
            "no cited maximum daily dose for 310965 in max_daily_dose.tsv: the dose cannot be verified");
}

// ---- tylenol-brand-name: Patient/pat-002, 209387, one 325 mg tablet every 6 hours = 4 per day ----

json Tylenol(json repeat) {
  return Statement("Patient/pat-002", "active", Coding("209387", "Acetaminophen 325 MG Oral Tablet [Tylenol]"),
                   {Dose(325, "mg", repeat)});
}

TEST(ScoreWrite, Q6hIsFourPerDayNotSix) {
  WriteResult right = Score("tylenol-brand-name", Tylenol(Every(1, 6, "h")));
  EXPECT_EQ(right.safety.reason,
            "dose 325 mg, 4 per day as documented; implied 1300 mg per day is within the labelled maximum of 4000 mg "
            "per day");
  WriteResult wrong = Score("tylenol-brand-name", Tylenol(Every(6, 1, "d")));
  EXPECT_EQ(wrong.safety.reason, "dosage[0] timing is 6 per day, the note documents 4 per day");
  EXPECT_DOUBLE_EQ(wrong.score, 0.75);
}

// ---- ibuprofen-denied: Patient/pat-007, 310965, not-taken, no regimen ----

TEST(ScoreWrite, NotTakenWithoutADosePasses) {
  WriteResult r = Score("ibuprofen-denied",
                        Statement("Patient/pat-007", "not-taken", Coding("310965", "Ibuprofen 200 MG Oral Tablet")));
  EXPECT_EQ(r.constraints.reason, "subject Patient/pat-007, status \"not-taken\", no dosage as documented");
  EXPECT_EQ(r.safety.reason, "no regimen documented and none encoded");
  EXPECT_TRUE(r.passed);
}

TEST(ScoreWrite, NotTakenWithADoseFailsConstraintsAndSafety) {
  WriteResult r = Score("ibuprofen-denied",
                        Statement("Patient/pat-007", "not-taken", Coding("310965", "Ibuprofen 200 MG Oral Tablet"),
                                  {Dose(200, "mg", Every(3, 1, "d"))}));
  EXPECT_EQ(r.constraints.reason, "dosage is present, but the note documents no regimen");
  EXPECT_EQ(r.safety.reason, "a dosage is encoded, but the note documents no regimen (invented dose)");
  EXPECT_DOUBLE_EQ(r.score, 0.5);
  WriteResult taking = Score("ibuprofen-denied",
                             Statement("Patient/pat-007", "active", Coding("310965", "Ibuprofen 200 MG Oral Tablet")));
  EXPECT_EQ(taking.constraints.reason, "status \"active\", the note documents \"not-taken\"");
}

// ---- the scribe-trials cases ----

TEST(ScoreWrite, LevothyroxineMicrograms) {
  auto levo = [](json dose) {
    return Statement("Patient/pat-106", "active", Coding("966222", "levothyroxine sodium 0.075 MG Oral Tablet"),
                     {dose});
  };
  WriteResult ug = Score("levothyroxine-mcg", levo(Dose(75, "ug", Every(1, 1, "d"))));
  EXPECT_EQ(ug.safety.reason, "dose 75 ug, 1 per day as documented; the label states no maximum daily dose");
  EXPECT_TRUE(Score("levothyroxine-mcg", levo(Dose(0.075, "mg", Every(1, 1, "d")))).safety.passed);
  EXPECT_EQ(
      Score("levothyroxine-mcg", levo(Dose(75, "mcg", Every(1, 1, "d")))).safety.reason,
      "dosage[0].doseAndRate.doseQuantity code \"mcg\" is not a UCUM dose unit known to the grader (e.g. mg, ug, g, "
      "mL, [IU], {puff})");
  EXPECT_EQ(Score("levothyroxine-mcg", levo(Dose(75, "mg", Every(1, 1, "d")))).safety.reason,
            "dosage[0] dose 75 mg (= 75000 ug), the note documents 75 ug per administration");
  json no_system = levo(Dose(75, "ug", Every(1, 1, "d")));
  no_system["dosage"][0]["doseAndRate"][0]["doseQuantity"].erase("system");
  EXPECT_EQ(Score("levothyroxine-mcg", no_system).safety.reason,
            "dosage[0].doseAndRate.doseQuantity system is missing, not UCUM (http://unitsofmeasure.org)");
}

TEST(ScoreWrite, InhalerPuffs) {
  auto flu = [](json dose) {
    return Statement("Patient/pat-102", "active",
                     Coding("895994", "120 ACTUAT fluticasone propionate 0.044 MG/ACTUAT Metered Dose Inhaler"),
                     {dose});
  };
  // 2 puffs x 0.044 mg = 0.088 mg = 88 ug per administration, twice a day = 176 ug per day.
  EXPECT_EQ(
      Score("fluticasone-two-puffs", flu(Dose(2, "{puff}", Every(2, 1, "d")))).safety.reason,
      "dose 2 {puff}, 2 per day as documented; implied 176 ug per day is within the labelled maximum of 1760 ug per "
      "day");
  EXPECT_TRUE(Score("fluticasone-two-puffs", flu(Dose(88, "ug", Every(2, 1, "d")))).safety.passed);
  EXPECT_EQ(Score("fluticasone-two-puffs", flu(Dose(44, "ug", Every(2, 1, "d")))).safety.reason,
            "dosage[0] dose 44 ug (= 1 {puff}), the note documents 2 {puff} per administration");
}

TEST(ScoreWrite, InsulinUnits) {
  auto glargine = [](json dose) {
    return Statement("Patient/pat-101", "active", Coding("847230", "3 ML insulin glargine 100 UNT/ML Pen Injector"),
                     {dose});
  };
  EXPECT_TRUE(Score("insulin-glargine-units", glargine(Dose(22, "[IU]", Every(1, 1, "d")))).passed);
  EXPECT_TRUE(Score("insulin-glargine-units", glargine(Dose(22, "U", Every(1, 1, "d")))).safety.passed);
  // 0.22 mL x 100 units/mL = 22 units.
  EXPECT_TRUE(Score("insulin-glargine-units", glargine(Dose(0.22, "mL", Every(1, 1, "d")))).safety.passed);
  EXPECT_EQ(Score("insulin-glargine-units", glargine(Dose(22, "mL", Every(1, 1, "d")))).safety.reason,
            "dosage[0] dose 22 mL (= 2200 [IU]), the note documents 22 [IU] per administration");
  EXPECT_EQ(Score("insulin-glargine-units", glargine(Dose(22, "mg", Every(1, 1, "d")))).safety.reason,
            "dosage[0] dose 22 mg cannot be compared with the documented 22 [IU] (no conversion through the product's "
            "strength)");
}

TEST(ScoreWrite, WeeklyMethotrexate) {
  auto mtx = [](json dose) {
    return Statement("Patient/pat-103", "active", Coding("105585", "methotrexate 2.5 MG Oral Tablet"), {dose});
  };
  EXPECT_EQ(
      Score("methotrexate-weekly", mtx(Dose(15, "mg", Every(1, 1, "wk")))).safety.reason,
      "dose 15 mg, 0.1429 per day as documented; implied 15 mg per week is within the labelled maximum of 20 mg per "
      "week");
  EXPECT_TRUE(Score("methotrexate-weekly", mtx(Dose(6, "{tbl}", Every(1, 7, "d")))).safety.passed);
  // Daily instead of weekly: 15 mg x 7 = 105 mg per week.
  EXPECT_EQ(Score("methotrexate-weekly", mtx(Dose(15, "mg", Every(1, 1, "d")))).safety.reason,
            "dosage[0] timing is 1 per day, the note documents 0.1429 per day; implied 105 mg per week exceeds the "
            "labelled maximum of 20 mg per week (DailyMed: methotrexate tablets USP (TREXALL, ANDA 040385, Drugs@FDA), "
            "DOSAGE AND ADMINISTRATION, Rheumatoid Arthritis)");
}

TEST(ScoreWrite, PrnIntervalRange) {
  auto tramadol = [](json repeat) {
    json dose = Dose(50, "mg", repeat);
    dose["asNeededBoolean"] = true;
    return Statement("Patient/pat-104", "active", Coding("835603", "tramadol hydrochloride 50 MG Oral Tablet"), {dose});
  };
  json range = Every(1, 4, "h");
  range["periodMax"] = 6;
  // Every 4 to 6 hours: 24/6 = 4 to 24/4 = 6 doses per day; at most 6 x 50 = 300 mg.
  EXPECT_EQ(
      Score("tramadol-prn-range", tramadol(range)).safety.reason,
      "dose 50 mg, 4 to 6 per day as documented; implied 300 mg per day is within the labelled maximum of 400 mg per "
      "day");
  EXPECT_EQ(Score("tramadol-prn-range", tramadol(Every(1, 4, "h"))).safety.reason,
            "dosage[0] timing is 6 per day, the note documents 4 to 6 per day");
}

TEST(ScoreWrite, TaperInSequence) {
  auto step = [](double mg, int sequence, double days) {
    json d = Dose(mg, "mg", Every(1, 1, "d"));
    d["sequence"] = sequence;
    d["timing"]["repeat"]["boundsDuration"] = {
        {"value", days}, {"unit", "days"}, {"system", "http://unitsofmeasure.org"}, {"code", "d"}};
    return d;
  };
  auto taper = [](std::initializer_list<json> dosage) {  // a list, whatever the compiler (see Statement)
    return Statement("Patient/pat-105", "active", Coding("198145", "prednisone 10 MG Oral Tablet"), dosage);
  };
  EXPECT_EQ(Score("prednisone-taper", taper({step(40, 1, 5), step(20, 2, 5)})).safety.reason,
            "2 regimens as documented; the label states no maximum daily dose");
  EXPECT_TRUE(Score("prednisone-taper", taper({step(20, 2, 5), step(40, 1, 5)})).safety.passed);
  EXPECT_EQ(Score("prednisone-taper", taper({step(40, 1, 5)})).safety.reason,
            "1 dosage entries, the note documents 2 regimens in sequence");
  EXPECT_EQ(Score("prednisone-taper", taper({step(40, 1, 5), step(20, 2, 10)})).safety.reason,
            "dosage[1] lasts 10 d, the note documents 5 d");
  json unbounded = step(40, 1, 5);
  unbounded["timing"]["repeat"].erase("boundsDuration");
  EXPECT_EQ(Score("prednisone-taper", taper({unbounded, step(20, 2, 5)})).safety.reason,
            "dosage[0] has no timing.repeat.boundsDuration, the note documents 5 d");
}

TEST(ScoreWrite, PatchTwelveHoursOnIsOncADay) {
  auto patch = [](json repeat) {
    return Statement("Patient/pat-108", "active", Coding("1745091", "lidocaine 0.05 MG/MG Medicated Patch"),
                     {Dose(1, "{patch}", repeat)});
  };
  EXPECT_EQ(Score("lidocaine-patch", patch(Every(1, 1, "d"))).safety.reason,
            "dose 1 {patch}, 1 per day as documented; implied 1 {patch} per day is within the labelled maximum of 3 "
            "{patch} per day");
  EXPECT_EQ(Score("lidocaine-patch", patch(Every(1, 12, "h"))).safety.reason,
            "dosage[0] timing is 2 per day, the note documents 1 per day");
}

TEST(ScoreWrite, BrandOnlyMentionIsTheBrandedDrug) {
  WriteResult generic = Score("zoloft-brand-only",
                              Statement("Patient/pat-109", "active", Coding("312941", "sertraline 50 MG Oral Tablet"),
                                        {Dose(50, "mg", Every(1, 1, "d"))}));
  EXPECT_EQ(
      generic.coding.reason,
      "RxNorm code 312941 (\"sertraline 50 MG Oral Tablet\" in the site catalog), expected 208161 (\"sertraline 50 "
      "MG Oral Tablet [Zoloft]\")");
  EXPECT_TRUE(generic.safety.passed);
}

TEST(ScoreWrite, OralLiquidThroughItsConcentration) {
  auto cetirizine = [](json dose) {
    return Statement("Patient/pat-107", "active", Coding("1014673", "cetirizine hydrochloride 1 MG/ML Oral Solution"),
                     {dose});
  };
  EXPECT_EQ(
      Score("cetirizine-oral-solution", cetirizine(Dose(10, "mL", Every(1, 1, "d")))).safety.reason,
      "dose 10 mL, 1 per day as documented; implied 10 mg per day is within the labelled maximum of 10 mg per day");
  EXPECT_TRUE(Score("cetirizine-oral-solution", cetirizine(Dose(10, "mg", Every(1, 1, "d")))).safety.passed);
  EXPECT_EQ(Score("cetirizine-oral-solution", cetirizine(Dose(5, "mg", Every(1, 1, "d")))).safety.reason,
            "dosage[0] dose 5 mg (= 5 mL), the note documents 10 mL per administration");
}

TEST(ScoreWrite, SchemaFailureIsIndependent) {
  json r = Ibuprofen({Dose(400, "mg", Every(3, 1, "d"))});
  r["status"] = "taking";
  WriteResult w = Score("ibuprofen-two-tablets", r);
  EXPECT_EQ(w.schema.reason,
            "1 finding: MedicationStatement.status: \"taking\" is not in the required value set (active | completed | "
            "entered-in-error | intended | stopped | on-hold | unknown | not-taken)");
  EXPECT_EQ(w.constraints.reason, "status \"taking\", the note documents \"active\"");
  EXPECT_TRUE(w.coding.passed && w.safety.passed);
  EXPECT_DOUBLE_EQ(w.score, 0.5);
}

TEST(ScoreWrite, UnparseableAnswerScoresZeroWithItsReason) {
  WriteResult r = ScoreWrite(LoadWriteCase("ibuprofen-two-tablets"), "I would record ibuprofen 400 mg TID.",
                             DefaultCatalog(), DefaultDoseLimits());
  EXPECT_FALSE(r.parsed);
  EXPECT_EQ(r.parse_error, "no JSON object in the answer");
  EXPECT_EQ(r.schema.reason, "not scored: no JSON object in the answer");
  EXPECT_EQ(r.safety.reason, "not scored: no JSON object in the answer");
  EXPECT_EQ(r.dimensions_passed, 0);
  EXPECT_DOUBLE_EQ(r.score, 0.0);
  WriteResult bundle = ScoreWrite(LoadWriteCase("ibuprofen-two-tablets"), R"({"resourceType": "Bundle"})",
                                  DefaultCatalog(), DefaultDoseLimits());
  EXPECT_EQ(bundle.parse_error, "no JSON object in the answer has \"resourceType\": \"MedicationStatement\"");
}

TEST(RenderWrite, PublishedFields) {
  json j = RenderWrite(Score("ibuprofen-two-tablets", Ibuprofen({Dose(200, "mg", Every(3, 1, "d"))})));
  EXPECT_EQ(j["case_id"], "ibuprofen-two-tablets");
  EXPECT_EQ(j["score_total"], 0.75);
  EXPECT_EQ(j["passed"], false);
  EXPECT_EQ(j["dimensions_passed"], 3);
  EXPECT_EQ(j["parsed"], true);
  EXPECT_TRUE(j["parse_error"].is_null());
  EXPECT_EQ(j["dimensions"]["schema"], json::parse(R"({"passed": true, "reason": "valid FHIR R4 MedicationStatement",
                                                       "findings": []})"));
  EXPECT_EQ(j["dimensions"]["safety"]["reason"], "dosage[0] dose 200 mg, the note documents 400 mg per administration");
  EXPECT_EQ(j["expected"], json::parse(R"({"subject": "Patient/pat-003", "rxnorm_code": "310965",
      "display": "Ibuprofen 200 MG Oral Tablet", "status": "active",
      "dosage": [{"dose_value": 400, "dose_unit": "mg", "per_day": 3}]})"));
  EXPECT_EQ(j["resource"]["resourceType"], "MedicationStatement");
}

}  // namespace
}  // namespace scribe::fhir
