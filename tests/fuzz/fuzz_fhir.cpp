// fuzz_fhir.cpp — libFuzzer: an agent's FHIR answer text → the answer-object finder and the
// MedicationStatement validator (fhir/answer_json.h, fhir/validate.h), as fhir_write and
// fhir_validate() run them.
//
// The first byte picks the path: even, the text is an answer (FindAnswerObject, then
// ValidateMedicationStatement on the object found); odd, the text is a resource given to
// fhir_validate (ValidateMedicationStatementText). Neither may throw, crash or trip a sanitizer,
// and the findings must serialise. Run by scripts/fuzz; seeds from tests/fixtures/notes/2[4-9]-*…
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "fhir/answer_json.h"
#include "fhir/validate.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::vector<scribe::fhir::Finding> findings;
  if (data[0] % 2 == 0) {
    scribe::fhir::AnswerObject a = scribe::fhir::FindAnswerObject(
        text, scribe::fhir::HasResourceType("MedicationStatement"), "\"resourceType\": \"MedicationStatement\"");
    if (a.ok) findings = scribe::fhir::ValidateMedicationStatement(a.value);
  } else {
    findings = scribe::fhir::ValidateMedicationStatementText(text);
  }
  (void)scribe::fhir::RenderFindings(findings).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return 0;
}
