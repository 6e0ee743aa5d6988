// registry.cpp — the task kinds, one row each (see kind.h). A new kind adds its folder and a row.
#include "fhir_extract/fhir_extract.h"
#include "fhir_write/fhir_write.h"
#include "kind.h"
#include "note/note.h"
#include "rubric/rubric.h"

namespace scribe {

const std::vector<const Kind*>& AllKinds() {
  static const std::vector<const Kind*> kinds = {
      &NoteKind(),         // seed 000: a free-text note against structured ground truth
      &RubricKind(),       // seed 001: a psychiatric note on a 100-point checklist, minus deductions
      &FhirExtractKind(),  // seed 003: the active medications read from a FHIR bundle (F1 on RxNorm codes)
      &FhirWriteKind(),    // seed 003: a FHIR MedicationStatement, four pass/fail dimensions
  };
  return kinds;
}

const Kind* FindKind(std::string_view name) {
  for (const Kind* k : AllKinds())
    if (k->name() == name) return k;
  return nullptr;
}

const Kind& KindOf(const Trial& trial) {
  const Kind* k = FindKind(trial.kind);
  if (!k) throw TrialError(trial.source_file + ": kind: unknown kind " + Quote(trial.kind));
  return *k;
}

std::string Kind::Prompt(const Trial& trial) const { return trial.instructions + "\n\n" + trial.encounter_text; }

std::vector<std::string> Kind::Reasons(const nlohmann::json& result, size_t limit) const {
  std::vector<std::string> out;
  if (!result.contains("critical_errors") || !result["critical_errors"].is_array()) return out;
  for (const auto& c : result["critical_errors"])
    if (out.size() < limit && c.is_object() && c.contains("message") && c["message"].is_string())
      out.push_back("critical: " + c["message"].get<std::string>());
  return out;
}

}  // namespace scribe
