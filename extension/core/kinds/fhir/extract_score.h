// fhir/extract_score.h — scoring a fhir_extract answer against the bundle's active medications.
//
//   ExtractionResult r = ScoreExtraction(DeriveActiveMedications(bundle).medications, output_text);
//   r.score            // = F1 on RxNorm codes; 0 when the answer cannot be parsed
//   WriteReport(w, r, record_codes)  // the report as a result publishes it, into a JsonWriter
//   RenderExtraction(r)  // the report on its own, with its score_total
//
// The answer is the JSON object with the key "active_medications" anywhere in the output
// (fenced or not): {"active_medications": [{"code": "314076", "display": "lisinopril 10 MG Oral Tablet"}]}.
// Precision and recall are on the sets of codes; with nothing expected and nothing answered
// both are 1, with exactly one of the two empty both are 0 (so one invented code for the
// zero-medication patient scores 0). Displays of matched codes are compared after
// NormalizeDisplay; exact-set match is equality of the code sets. An answer that cannot be read
// is a result with parsed = false, its reason and score 0 — never dropped.
#pragma once

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "fhir/bundle.h"
#include "json_writer.h"

namespace scribe::fhir {

struct DisplayMismatch {
  std::string code, expected, answered;
};

struct ExtractionResult {
  bool parsed = false;
  std::string parse_error;               // set when !parsed
  std::vector<MedicationCode> expected;  // the ground truth, in bundle order
  std::vector<MedicationCode> answered;  // the answer's medications, duplicates collapsed, in answer order
  std::vector<std::string> duplicates;   // codes the answer lists more than once
  std::vector<std::string> matched;      // codes in both, in expected order
  std::vector<MedicationCode> missing;   // expected, not answered
  std::vector<MedicationCode> extra;     // answered, not expected
  double precision = 0, recall = 0, f1 = 0;
  size_t displays_matched = 0;  // of matched.size()
  std::vector<DisplayMismatch> display_mismatches;
  bool exact_set_match = false;
  double score = 0;  // = f1
};

ExtractionResult ScoreExtraction(const std::vector<MedicationCode>& truth, std::string_view output_text);

// The report as a result publishes it ("extraction": the result's score_total is the envelope's):
// {"answered", "display", "duplicates", "exact_set_match", "expected", "extra", "f1", "matched",
// "missing", "parse_error", "parsed", "precision", "recall"}, each extra code with "in_bundle":
// whether `record_codes` (every code anywhere in the patient's record) holds it.
void WriteReport(JsonWriter& w, const ExtractionResult& result, const std::set<std::string>& record_codes);
// The report on its own, as a DOM (tests, tools): the same members but "in_bundle", and
// "score_total". Written by the same code as WriteReport and parsed back.
nlohmann::json RenderExtraction(const ExtractionResult& result);

}  // namespace scribe::fhir
