// Unit tests for fhir/validate.h: the R4 schema through valijson, the rules it cannot express,
// and the size limits that run before any regular expression.
#include "fhir/validate.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace scribe::fhir {
namespace {

using nlohmann::json;

json Valid() {
  return json::parse(R"({
    "resourceType": "MedicationStatement",
    "status": "active",
    "medicationCodeableConcept": {"coding": [{"system": "http://www.nlm.nih.gov/research/umls/rxnorm",
                                              "code": "310965", "display": "Ibuprofen 200 MG Oral Tablet"}]},
    "subject": {"reference": "Patient/pat-003"},
    "effectiveDateTime": "2026-05-12",
    "dosage": [{"text": "two tablets three times a day",
                "timing": {"repeat": {"frequency": 3, "period": 1, "periodUnit": "d"}},
                "route": {"coding": [{"system": "http://snomed.info/sct", "code": "26643006", "display": "Oral route"}]},
                "doseAndRate": [{"doseQuantity": {"value": 400, "unit": "mg", "system": "http://unitsofmeasure.org",
                                                  "code": "mg"}}]}]
  })");
}

std::vector<Finding> V(const json& r) { return ValidateMedicationStatement(r); }
using F = std::vector<Finding>;

const std::string kStatuses =
    "active | completed | entered-in-error | intended | stopped | on-hold | unknown | not-taken";

TEST(ValidateMedicationStatement, ValidResourceHasNoFindings) { EXPECT_EQ(V(Valid()), F{}); }

TEST(ValidateMedicationStatement, SchemaFindingsWithPaths) {
  json r = Valid();
  r["dosage"][0]["doseQuantity"] = {{"value", 400}};  // belongs in doseAndRate
  r["effectiveDateTime"] = "12 May 2026";
  r["subject"] = "Patient/pat-003";  // a Reference is an object
  EXPECT_EQ(V(r),
            (F{{"MedicationStatement.dosage[0]",
                "Object contains a property that could not be validated using 'properties' or "
                "'additionalProperties' constraints: 'doseQuantity'."},
               {"MedicationStatement.effectiveDateTime", "Failed to match regex specified by 'pattern' constraint."},
               {"MedicationStatement.subject", "Value type not permitted by 'type' constraint. (got string)"}}));
}

TEST(ValidateMedicationStatement, ResourceTypeAndRequiredSubject) {
  json r = Valid();
  r["resourceType"] = "MedicationRequest";
  EXPECT_EQ(V(r),
            (F{{"MedicationStatement.resourceType", "Failed to match expected value set by 'const' constraint."}}));
  r = Valid();
  r.erase("subject");
  EXPECT_EQ(V(r), (F{{"MedicationStatement", "Missing required property 'subject'."}}));
}

TEST(ValidateMedicationStatement, ContainedMedicationIsValidatedOthersNeedAResourceType) {
  json r = Valid();
  r.erase("medicationCodeableConcept");
  r["medicationReference"] = {{"reference", "#m"}};
  r["contained"] = {{{"resourceType", "Medication"}, {"id", "m"}, {"code", {{"text", "ibuprofen"}}}},
                    {{"resourceType", "Patient"}, {"id", "p"}}};
  EXPECT_EQ(V(r), F{});
  r["contained"][0]["form"] = "tablet";  // Medication.form is a CodeableConcept
  r["contained"][1].erase("resourceType");
  EXPECT_EQ(V(r),
            (F{{"MedicationStatement.contained[0].form", "Value type not permitted by 'type' constraint. (got string)"},
               {"MedicationStatement.contained[1]", "Missing required property 'resourceType'."}}));
}

TEST(ValidateMedicationStatement, StatusRequiredAndInTheValueSet) {
  json r = Valid();
  r.erase("status");
  EXPECT_EQ(V(r), (F{{"MedicationStatement.status", "is missing (required: " + kStatuses + ")"}}));
  r["status"] = "taking";
  EXPECT_EQ(V(r),
            (F{{"MedicationStatement.status", "\"taking\" is not in the required value set (" + kStatuses + ")"}}));
  r["status"] = 3;  // the schema's type check; the value-set rule only reads strings
  EXPECT_EQ(V(r), (F{{"MedicationStatement.status", "Value type not permitted by 'type' constraint. (got number)"}}));
  for (const std::string& s : MedicationStatementStatuses()) {
    r["status"] = s;
    EXPECT_EQ(V(r), F{}) << s;
  }
}

TEST(ValidateMedicationStatement, ExactlyOneMedication) {
  json r = Valid();
  r.erase("medicationCodeableConcept");
  EXPECT_EQ(
      V(r),
      (F{{"MedicationStatement", "medication[x] is missing: give medicationCodeableConcept or medicationReference"}}));
  r = Valid();
  r["medicationReference"] = {{"reference", "Medication/1"}};
  EXPECT_EQ(V(r), (F{{"MedicationStatement",
                      "medicationCodeableConcept and medicationReference are both present: give "
                      "exactly one medication[x]"}}));
}

TEST(ValidateMedicationStatement, TimingRepeatRules) {
  const std::string p = "MedicationStatement.dosage[0].timing.repeat";
  auto with_repeat = [](json repeat) {
    json r = Valid();
    r["dosage"][0]["timing"]["repeat"] = repeat;
    return V(r);
  };
  EXPECT_EQ(with_repeat({{"frequency", 1.5}, {"period", 1}, {"periodUnit", "d"}}),
            (F{{p + ".frequency", "must be a positive integer, got 1.5"}}));
  EXPECT_EQ(with_repeat({{"frequency", 0}, {"period", 1}, {"periodUnit", "d"}}),
            (F{{p + ".frequency", "must be a positive integer, got 0"}}));
  EXPECT_EQ(with_repeat({{"frequency", 1}, {"frequencyMax", 2.5}, {"period", 1}, {"periodUnit", "d"}}),
            (F{{p + ".frequencyMax", "must be a positive integer, got 2.5"}}));
  EXPECT_EQ(with_repeat({{"frequency", 1}, {"period", -4}, {"periodUnit", "h"}}),
            (F{{p + ".period", "must be >= 0, got -4"}}));
  EXPECT_EQ(with_repeat({{"frequency", 4}, {"period", 1}}), (F{{p + ".period", "needs periodUnit"}}));
  EXPECT_EQ(with_repeat({{"frequency", 1}, {"periodMax", 6}, {"periodUnit", "h"}}),
            (F{{p + ".periodMax", "needs period"}}));
  EXPECT_EQ(with_repeat({{"count", 3}, {"countMax", 2.5}}),
            (F{{p + ".countMax", "must be a positive integer, got 2.5"}}));
  EXPECT_EQ(with_repeat({{"countMax", 3}}), (F{{p + ".countMax", "needs count"}}));
  EXPECT_EQ(with_repeat({{"duration", 12}}), (F{{p + ".duration", "needs durationUnit"}}));
  EXPECT_EQ(with_repeat({{"duration", 12}, {"durationUnit", "h"}, {"durationMax", -1}}),
            (F{{p + ".durationMax", "must be >= 0, got -1"}}));
  EXPECT_EQ(with_repeat({{"frequency", 1}, {"period", 4}, {"periodMax", 6}, {"periodUnit", "h"}}), F{});
  EXPECT_EQ(with_repeat({{"frequency", "3"}, {"period", 1}, {"periodUnit", "d"}}),
            (F{{p + ".frequency", "Value type not permitted by 'type' constraint. (got string)"}}));
}

TEST(ValidateMedicationStatement, NoEmptyObjectArrayOrNull) {
  json r = Valid();
  r["meta"] = json::object();
  r["note"] = json::array();
  EXPECT_EQ(V(r), (F{{"MedicationStatement.meta", "empty object"}, {"MedicationStatement.note", "empty array"}}));
  r = Valid();
  r["effectiveDateTime"] = nullptr;
  EXPECT_EQ(
      V(r),
      (F{{"MedicationStatement.effectiveDateTime", "null is not allowed"},
         {"MedicationStatement.effectiveDateTime", "Value type not permitted by 'type' constraint. (got null)"}}));
}

TEST(ValidateMedicationStatement, LimitsRunBeforeTheSchema) {
  json r = Valid();
  r["note"] = {{{"text", std::string(kMaxStringBytes, 'x')}}};
  EXPECT_EQ(V(r), F{});  // at the limit: the schema's patterns run on it
  r["note"] = {{{"text", std::string(kMaxStringBytes + 1, 'x')}}};
  EXPECT_EQ(V(r), (F{{"MedicationStatement.note[0].text", "string of 2049 bytes exceeds the 2048-byte limit"},
                     {"MedicationStatement", "schema not checked: the resource exceeds a size limit"}}));
  r = Valid();
  r[std::string(3000, 'k')] = 1;
  EXPECT_EQ(V(r), (F{{"MedicationStatement", "key of 3000 bytes exceeds the 2048-byte limit"},
                     {"MedicationStatement", "schema not checked: the resource exceeds a size limit"}}));
  r = Valid();
  json deep = "x";
  for (int i = 0; i < 30; ++i) deep = json{{"extension", {deep}}};
  r["meta"] = deep;
  EXPECT_EQ(V(r), (F{{"MedicationStatement", "nested deeper than 24 levels; schema not checked"}}));
  r = Valid();
  for (int i = 0; i < 40; ++i) r["note"].push_back({{"text", std::string(2000, 'n')}});
  size_t bytes = r.dump().size();
  ASSERT_GT(bytes, kMaxResourceBytes);
  EXPECT_EQ(V(r), (F{{"MedicationStatement", "resource of " + std::to_string(bytes) +
                                                 " bytes exceeds the 65536-byte limit; schema not checked"}}));
}

TEST(ValidateMedicationStatement, NotAnObject) {
  EXPECT_EQ(V(json::array()), (F{{"MedicationStatement", "must be a JSON object, got array"}}));
  EXPECT_EQ(V(json("text")), (F{{"MedicationStatement", "must be a JSON object, got string"}}));
}

TEST(RenderFindings, PathAndMessage) {
  EXPECT_EQ(RenderFindings({{"MedicationStatement.status", "is missing"}}).dump(),
            R"([{"message":"is missing","path":"MedicationStatement.status"}])");
}

}  // namespace
}  // namespace scribe::fhir
