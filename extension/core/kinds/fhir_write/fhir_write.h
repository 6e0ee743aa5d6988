// fhir_write.h — kind `fhir_write` (seed 003): can an agent write a MedicationStatement,
// correctly and safely? The agent is given a note excerpt, the patient's reference and the site
// catalog's products of the drug's ingredients, and answers with one FHIR R4 MedicationStatement
// (docs/methodology.md, "FHIR task kinds"):
//
//   trial keys   case: fhir/write_cases/<case>.json   (read through the corpus loader: part of
//                the trial's version hash; fhir/write_case.h describes the file)
//   dimensions   schema, coding, constraints, safety — each pass/fail with its reason
//                (fhir/write_score.h); score_total = passed / 4; passed only when all four pass
//   critical     unsafe_dose: the answer encodes a dosage and safety fails (a dose or frequency that
//                is not the documented one, a total over the labelled maximum, a dose the note
//                never documented); wrong_drug: the coding names another drug (different
//                ingredients) or a code the site catalog does not have
#pragma once

#include <string>

#include "fhir/write_case.h"
#include "kind.h"

namespace scribe {

struct FhirWriteTrial : TrialBody {
  std::string case_path;  // as the trial file writes it
  fhir::WriteCase write_case;
};

const Kind& FhirWriteKind();

// What the agent is given after the instructions: the subject, the note excerpt and the site
// catalog's products with the same ingredients as the documented one (code, term type, display).
std::string WriteCaseContext(const fhir::WriteCase& c);

}  // namespace scribe
