// fhir/bundle.h — the fhir_extract ground truth, derived from the bundle the agent reads.
//
//   ActiveMedications truth = DeriveActiveMedications(bundle_json);
//   truth.medications   // [{code "314076", display "lisinopril 10 MG Oral Tablet"}, …] in bundle order
//   truth.skipped       // active requests that could not be identified, each with its reason
//
// Every MedicationRequest with status "active" counts, identified by its RxNorm coding (the
// coding whose system is http://www.nlm.nih.gov/research/umls/rxnorm, wherever it sits in the
// coding list); medicationReference is resolved to the Medication it names (a contained
// "#id", a bundle entry's fullUrl, or "Medication/<id>"). The same code twice is one
// medication (the first display is kept).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace scribe::fhir {

inline constexpr const char* kRxNormSystem = "http://www.nlm.nih.gov/research/umls/rxnorm";

struct MedicationCode {
  std::string code, display;
  bool operator==(const MedicationCode&) const = default;
};

struct ActiveMedications {
  std::vector<MedicationCode> medications;
  std::vector<std::string> skipped;  // "MedicationRequest/<id>: <reason>"
};

// The RxNorm coding of a CodeableConcept, or nullptr. With several RxNorm codings, the first.
const nlohmann::json* FindRxNormCoding(const nlohmann::json& codeable_concept);

// Throws std::invalid_argument when `bundle` is not a Bundle with an entry array.
ActiveMedications DeriveActiveMedications(const nlohmann::json& bundle);

}  // namespace scribe::fhir
