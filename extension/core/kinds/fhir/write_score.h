// fhir/write_score.h — scoring a fhir_write answer: four independent pass/fail dimensions.
//
//   WriteResult r = ScoreWrite(LoadWriteCase("ibuprofen-two-tablets"), output_text,
//                              DefaultCatalog(), DefaultDoseLimits());
//   r.schema.passed, r.coding.passed, r.constraints.passed, r.safety.passed   // each with its reason
//   r.score       // passed dimensions / 4;  r.passed only when all four pass
//   WriteReport(w, r)  // the report as a result publishes it, into a JsonWriter
//   RenderWrite(r)     // the report on its own, with its score_total
//
// The answer is the JSON object with "resourceType": "MedicationStatement" anywhere in the
// output (fenced or not); without one every dimension fails with the reason and the score is 0.
//   schema       ValidateMedicationStatement finds nothing (fhir/validate.h).
//   coding       exactly one RxNorm coding (medicationCodeableConcept, or a contained
//                Medication's code), with the expected code and display (NormalizeDisplay).
//   constraints  subject.reference is the case's subject; status is the documented status;
//                dosage is present exactly when the note documents a regimen.
//   safety       with a documented regimen, each dosage (in sequence order) encodes the documented
//                dose per administration in doseAndRate.doseQuantity (UCUM, converted: mass units,
//                and counts or volumes through the coded product's catalog strength), the
//                documented doses per day in timing.repeat, a taper step's boundsDuration, and the
//                implied total per period stays within the drug's ceiling in max_daily_dose.tsv
//                (no cited row: unverifiable, fails). Without a documented regimen any encoded
//                dosage is an invented dose and fails.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "fhir/catalog.h"
#include "fhir/validate.h"
#include "fhir/write_case.h"
#include "json_writer.h"

namespace scribe::fhir {

struct DimensionResult {
  bool passed = false;
  std::string reason;
};

struct WriteResult {
  std::string case_id;
  bool parsed = false;
  std::string parse_error;  // set when !parsed
  nlohmann::json expected;  // what the note documents (subject, code, display, status, dosage)
  nlohmann::json resource;  // the MedicationStatement found (null when !parsed)
  std::string coded;        // the RxNorm code the answer carries ("" when it has none or several)
  std::vector<Finding> findings;
  DimensionResult schema, coding, constraints, safety;
  int dimensions_passed = 0;
  double score = 0;
  bool passed = false;
};

inline constexpr double kDoseTolerance = 1e-6;  // relative: equal doses and frequencies after unit conversion

WriteResult ScoreWrite(const WriteCase& c, std::string_view output_text, const RxNormCatalog& catalog,
                       const DoseLimits& limits);

// The report as a result publishes it ("write": the result's score_total is the envelope's):
// {"case_id", "dimensions" (coding, constraints, safety, schema with its findings: each passed and
// reason), "dimensions_passed", "expected", "parse_error", "parsed", "passed", "resource"}.
void WriteReport(JsonWriter& w, const WriteResult& result);
// The report on its own, as a DOM (tests, tools): the same members and "score_total". Written by
// the same code as WriteReport and parsed back.
nlohmann::json RenderWrite(const WriteResult& result);

// What the note documents, as results publish it: subject, rxnorm_code, display, status, dosage.
nlohmann::json WriteCaseJson(const WriteCase& c);

}  // namespace scribe::fhir
