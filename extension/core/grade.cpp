// grade.cpp — the result envelope every kind shares (see grade.h).
#include "grade.h"

namespace scribe {

using nlohmann::json;

PreparedTrial::PreparedTrial(Trial trial, const Rules& rules, const Terminology& terminology,
                             const AssertionAnalyzer& assertion)
    : trial_(std::move(trial)), kind_(KindOf(trial_)), env_{rules, terminology, assertion},
      body_(kind_.Prepare(trial_, env_)), ground_truth_(GroundTruthJson(trial_)), ground_truth_text_(DumpJson(ground_truth_)) {}

std::string DumpJson(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

namespace {

// The result without its "ground_truth" member.
json GradeWithoutGroundTruth(const PreparedTrial& p, std::string_view output, const std::string& corpus_hash,
                             DrugValidator& validator) {
  const Trial& trial = p.trial();
  GradeContext ctx{validator};
  std::unique_ptr<Outcome> outcome = p.kind().Score(trial, p.body(), output, ctx);
  json envelope = {
      {"script_id", trial.id},
      {"kind", trial.kind},
      {"trial_title", trial.title},
      {"difficulty", trial.difficulty},
      {"score_total", outcome->score_total},
      {"unsafe", !outcome->critical_errors.empty()},
      {"critical_error_count", outcome->critical_errors.size()},
      {"grader_version", p.rules().grader_version},
      {"methodology_version", p.kind().methodology_version(p.rules())},
      {"corpus_hash", corpus_hash},
      {"trial_version_hash", trial.version_hash},
      {"terminology", validator.Versions()},
      {"note_chars", CodePointCount(output)},
      {"sealed", trial.sealed},
  };
  json critical = json::array();
  for (const CriticalError& c : outcome->critical_errors) critical.push_back(CriticalErrorJson(c));
  envelope["critical_errors"] = std::move(critical);
  json result = p.kind().Render(trial, *outcome);
  for (auto& [key, value] : envelope.items()) result[key] = std::move(value);
  return result;
}

}  // namespace

json Grade(const PreparedTrial& p, std::string_view output, const std::string& corpus_hash, DrugValidator& validator) {
  json result = GradeWithoutGroundTruth(p, output, corpus_hash, validator);
  result["ground_truth"] = p.ground_truth();
  return result;
}

std::string GradeText(const PreparedTrial& p, std::string_view output, const std::string& corpus_hash,
                      DrugValidator& validator) {
  json result = GradeWithoutGroundTruth(p, output, corpus_hash, validator);
  result["ground_truth"] = nullptr;  // holds its place in key order; written from ground_truth_text()
  // An object as dump() writes it compactly: members in key order, "key":value, comma-separated.
  std::string out;
  out.reserve(p.ground_truth_text().size() + 8192);
  out += '{';
  for (const auto& [key, value] : result.items()) {
    if (out.size() > 1) out += ',';
    out += DumpJson(key);
    out += ':';
    out += key == "ground_truth" ? p.ground_truth_text() : DumpJson(value);
  }
  out += '}';
  return out;
}

json PublicResult(const json& result) {
  if (!result.is_object() || !result.value("sealed", false)) return result;
  static const char* const kShown[] = {"script_id", "kind", "trial_title", "difficulty", "score_total", "unsafe",
                                       "critical_error_count", "grader_version", "methodology_version", "corpus_hash",
                                       "trial_version_hash", "terminology", "note_chars", "sealed",
                                       "id", "vendor", "created_at", "dry_run", "current", "grades"};
  json shown = json::object();
  for (const char* key : kShown)
    if (result.contains(key)) shown[key] = result[key];
  json withheld = json::array();
  size_t n = result.value("critical_error_count", result.contains("critical_errors") && result["critical_errors"].is_array()
                                                      ? result["critical_errors"].size() : 0);
  for (size_t i = 0; i < n; ++i)
    withheld.push_back({{"kind", "withheld"}, {"message", "details withheld: sealed trial"}, {"evidence", nullptr}});
  shown["critical_errors"] = std::move(withheld);
  shown["ground_truth"] = nullptr;
  return shown;
}

}  // namespace scribe
