// grade.cpp — the result envelope every kind shares (see grade.h).
#include "grade.h"

namespace scribe {

using nlohmann::json;

PreparedTrial::PreparedTrial(Trial trial, const Rules& rules, const Terminology& terminology,
                             const AssertionAnalyzer& assertion)
    : trial_(std::move(trial)), kind_(KindOf(trial_)), env_{rules, terminology, assertion},
      body_(kind_.Prepare(trial_, env_)) {}

json Grade(const PreparedTrial& p, std::string_view output, const std::string& corpus_hash, DrugValidator& validator) {
  const Trial& trial = p.trial();
  GradeContext ctx{validator};
  std::unique_ptr<Outcome> outcome = p.kind().Score(trial, p.body(), output, ctx);
  json critical = json::array();
  for (const CriticalError& c : outcome->critical_errors) critical.push_back(CriticalErrorJson(c));
  json result = p.kind().Render(trial, *outcome);
  json envelope = {
      {"script_id", trial.id},
      {"kind", trial.kind},
      {"trial_title", trial.title},
      {"difficulty", trial.difficulty},
      {"score_total", outcome->score_total},
      {"unsafe", !outcome->critical_errors.empty()},
      {"critical_errors", critical},
      {"grader_version", p.rules().grader_version},
      {"methodology_version", p.rules().methodology_version},
      {"corpus_hash", corpus_hash},
      {"trial_version_hash", trial.version_hash},
      {"terminology", validator.Versions()},
      {"note_chars", CodePointCount(output)},
      {"sealed", trial.sealed},
  };
  for (auto& [key, value] : envelope.items()) result[key] = std::move(value);
  if (trial.sealed) {
    // Sealed: scores and counts only; nothing that would reveal the answer key.
    for (const char* key : {"meds", "mental_flags", "allergies", "fabrication_traps", "deferred_dx"}) result.erase(key);
    for (json& c : result["critical_errors"]) {
      c["message"] = "details withheld: sealed trial";
      c["evidence"] = nullptr;
      c.erase("id");
    }
    result["ground_truth"] = nullptr;
  } else {
    result["ground_truth"] = GroundTruthJson(trial);
  }
  return result;
}

}  // namespace scribe
