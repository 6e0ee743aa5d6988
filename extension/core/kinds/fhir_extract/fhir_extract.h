// fhir_extract.h — kind `fhir_extract` (seed 003): can a model read structured clinical data?
// The agent is given a FHIR R4 bundle and answers with the patient's active medications
// (docs/methodology.md, "FHIR task kinds"):
//
//   trial keys   bundle: fhir/bundles/<patient>.json   (read through the corpus loader, so the
//                bundle is part of the trial's version hash; it is what the agent is given)
//   ground truth every MedicationRequest with status active, by its RxNorm coding, references
//                resolved, duplicates collapsed — derived from the bundle at load (fhir/bundle.h)
//   answer       {"active_medications": [{"code": "…", "display": "…"}]} anywhere in the output
//   score_total  F1 on RxNorm codes (fhir/extract_score.h); an unreadable answer scores 0 with
//                its reason in the result
//   critical     invented_medication: an answered code that is nowhere in the bundle (no
//                MedicationRequest or Medication of any status carries it)
#pragma once

#include <set>
#include <string>
#include <vector>

#include "fhir/bundle.h"
#include "kind.h"

namespace scribe {

struct FhirExtractTrial : TrialBody {
  std::string bundle_path;                        // as the trial file writes it
  std::vector<fhir::MedicationCode> medications;  // the ground truth, in bundle order
  std::set<std::string> bundle_codes;             // every RxNorm code anywhere in the bundle
};

const Kind& FhirExtractKind();

}  // namespace scribe
