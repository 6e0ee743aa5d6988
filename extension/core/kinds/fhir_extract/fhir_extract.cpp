// fhir_extract.cpp — kind `fhir_extract` (see fhir_extract.h): schema, scorer and renderer.
#include "fhir_extract/fhir_extract.h"

#include <stdexcept>

#include "fhir/answer_json.h"
#include "fhir/display.h"
#include "fhir/extract_score.h"
#include "text.h"

namespace scribe {
namespace {

using nlohmann::json;

// Every RxNorm code in a FHIR value, wherever a coding carries it.
void CollectRxNormCodes(const json& j, std::set<std::string>& codes) {
  if (j.is_object()) {
    auto system = j.find("system");
    auto code = j.find("code");
    if (system != j.end() && code != j.end() && system->is_string() && code->is_string() &&
        *system == fhir::kRxNormSystem)
      codes.insert(code->get<std::string>());
    for (const auto& [key, value] : j.items()) CollectRxNormCodes(value, codes);
  } else if (j.is_array()) {
    for (const json& v : j) CollectRxNormCodes(v, codes);
  }
}

struct ExtractOutcome : Outcome {
  fhir::ExtractionResult result;
};

class FhirExtract final : public Kind {
 public:
  std::string_view name() const override { return "fhir_extract"; }
  std::string_view description() const override {
    return "the active medications read from a FHIR R4 bundle: precision, recall and F1 on RxNorm codes, displays "
           "of matched codes, exact-set match; score_total = F1";
  }
  std::vector<std::string> keys() const override { return {"bundle"}; }
  bool needs_encounter_text() const override { return false; }

  void Parse(const YAML::Node& root, const SchemaPath& top, const ParseEnv& env, Trial& trial) const override {
    auto body = std::make_shared<FhirExtractTrial>();
    SchemaPath where = top.Key("bundle");
    body->bundle_path = RequiredString(root, "bundle", top);
    std::string bytes = env.read_file(body->bundle_path, where);
    json bundle = json::parse(bytes, nullptr, false);
    if (bundle.is_discarded()) where.Fail(Quote(body->bundle_path) + " is not valid JSON");
    fhir::ActiveMedications active;
    try {
      active = fhir::DeriveActiveMedications(bundle);
    } catch (const std::invalid_argument& e) {
      where.Fail(Quote(body->bundle_path) + ": " + e.what());
    }
    // A request the grader cannot identify would make the ground truth silently short.
    if (!active.skipped.empty())
      where.Fail(Quote(body->bundle_path) + ": an active MedicationRequest has no RxNorm code (" + active.skipped[0] +
                 ")");
    body->medications = std::move(active.medications);
    CollectRxNormCodes(bundle, body->bundle_codes);
    trial.encounter_text = std::move(bytes);  // what the agent is given, after the instructions
    trial.body = std::move(body);
  }

  json GroundTruth(const Trial& trial) const override {
    const auto& t = trial.As<FhirExtractTrial>();
    json meds = json::array();
    for (const auto& m : t.medications) meds.push_back({{"code", m.code}, {"display", m.display}});
    return {{"bundle", t.bundle_path}, {"active_medications", meds}};
  }

  std::shared_ptr<const PreparedBody> Prepare(const Trial&, const Environment&) const override {
    return std::make_shared<PreparedBody>();  // the ground truth was derived at load
  }

  std::unique_ptr<Outcome> Score(const Trial& trial, const PreparedBody&, std::string_view output,
                                 GradeContext&) const override {
    const auto& t = trial.As<FhirExtractTrial>();
    auto o = std::make_unique<ExtractOutcome>();
    o->result = fhir::ScoreExtraction(t.medications, output);
    for (const fhir::MedicationCode& m : o->result.extra)
      if (!t.bundle_codes.count(m.code))
        o->critical_errors.push_back({"invented_medication",
                                      "RxNorm code " + m.code + " (" + Quote(m.display) +
                                          ") is listed as an active medication but appears nowhere in the patient's "
                                          "record",
                                      m.code, std::nullopt});
    o->score_total = Round4(o->result.score);
    return o;
  }

  void Render(const Trial& trial, const Outcome& outcome, JsonWriter& w) const override {
    const auto& t = trial.As<FhirExtractTrial>();
    const auto& o = static_cast<const ExtractOutcome&>(outcome);
    const std::pair<const char*, size_t> counts[] = {
        {"answered", o.result.answered.size()}, {"critical_errors", o.critical_errors.size()},
        {"expected", o.result.expected.size()}, {"extra", o.result.extra.size()},
        {"matched", o.result.matched.size()},   {"missing", o.result.missing.size()}};
    w.Key("counts");
    w.BeginObject();
    for (const auto& [key, n] : counts) {
      w.Key(key);
      w.Uint(n);
    }
    w.EndObject();
    // Each extra code: is it in the record at all (a stopped or completed request read as
    // active), or invented?
    w.Key("extraction");
    fhir::WriteReport(w, o.result, t.bundle_codes);
  }

  json Methodology() const override {
    return {{"kind", "fhir_extract"},
            {"description", description()},
            {"answer",
             "the JSON object with the key \"active_medications\" anywhere in the output (alone, in a ``` "
             "fence, after prose): {\"active_medications\": [{\"code\": \"<RxNorm code>\", \"display\": "
             "\"<display>\"}]}; each item needs a non-empty string code and a string display"},
            {"ground_truth",
             "every MedicationRequest with status active, identified by its coding whose system is "
             "http://www.nlm.nih.gov/research/umls/rxnorm (not merely the first coding); "
             "medicationReference resolved to the Medication it names (contained #id, bundle fullUrl, "
             "Medication/<id>); the same code twice counts once"},
            {"scores",
             {{"precision", "matched codes / answered codes"},
              {"recall", "matched codes / expected codes"},
              {"f1",
               "2PR / (P + R); nothing expected and nothing answered: P = R = F1 = 1; exactly one of the two "
               "empty: P = R = F1 = 0"},
              {"display",
               "matched codes whose displays are equal after Unicode NFC and white-space folding (case "
               "kept); reported, not in the total"},
              {"exact_set_match", "the answered code set equals the expected code set"},
              {"total", "score_total = F1, rounded to 4 decimals"}}},
            {"unreadable_answer", "no such object, two different ones, an item without a code, more than " +
                                      std::to_string(fhir::kMaxAnswerBytes) + " bytes or nesting deeper than " +
                                      std::to_string(fhir::kMaxAnswerDepth) +
                                      ": score 0 with the reason in extraction.parse_error; never dropped from the "
                                      "results (unlike the seed's harness, which skips errors)"},
            {"critical_errors", {"invented_medication"}},
            {"critical_error_rules",
             {{"invented_medication",
               "an answered code that no MedicationRequest or Medication of the bundle carries, "
               "whatever its status (a stopped request listed as active costs precision only)"}}}};
  }
};

}  // namespace

const Kind& FhirExtractKind() {
  static FhirExtract kind;
  return kind;
}

}  // namespace scribe
