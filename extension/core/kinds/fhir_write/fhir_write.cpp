// fhir_write.cpp — kind `fhir_write` (see fhir_write.h): schema, scorer and renderer.
#include "fhir_write/fhir_write.h"

#include <stdexcept>

#include "fhir/answer_json.h"
#include "fhir/catalog.h"
#include "fhir/validate.h"
#include "fhir/write_score.h"
#include "text.h"

namespace scribe {
namespace {

using nlohmann::json;

struct WriteOutcome : Outcome {
  fhir::WriteResult result;
};

bool HasDosage(const json& resource) {
  auto it = resource.is_object() ? resource.find("dosage") : resource.end();
  return resource.is_object() && it != resource.end() && !it->is_null();
}

class FhirWrite final : public Kind {
 public:
  std::string_view name() const override { return "fhir_write"; }
  std::string_view description() const override {
    return "a FHIR R4 MedicationStatement written from a note excerpt: schema, coding, constraints and safety, "
           "each pass/fail with its reason; score_total = dimensions passed / 4";
  }
  std::vector<std::string> keys() const override { return {"case"}; }
  bool needs_encounter_text() const override { return false; }

  void Parse(const YAML::Node& root, const SchemaPath& top, const ParseEnv& env, Trial& trial) const override {
    auto body = std::make_shared<FhirWriteTrial>();
    SchemaPath where = top.Key("case");
    body->case_path = RequiredString(root, "case", top);
    std::string bytes = env.read_file(body->case_path, where);
    try {
      body->write_case = fhir::ParseWriteCase(std::string_view(bytes), body->case_path);
    } catch (const std::invalid_argument& e) {
      where.Fail(e.what());
    }
    const fhir::WriteCase& c = body->write_case;
    // A case whose reference answer could not pass is a bad trial, refused at load.
    const fhir::CatalogDrug* product = fhir::DefaultCatalog().Find(c.code);
    if (product == nullptr)
      where.Fail("RxNorm code " + c.code + " of " + Quote(body->case_path) + " is not in the site catalog");
    if (!c.dosage.empty() && fhir::DefaultDoseLimits().For(*product) == nullptr)
      where.Fail(Quote(body->case_path) + " documents a dose of " + c.code +
                 ", which has no cited maximum daily dose in max_daily_dose.tsv");
    trial.encounter_text = WriteCaseContext(c);
    trial.body = std::move(body);
  }

  json GroundTruth(const Trial& trial) const override {
    const auto& t = trial.As<FhirWriteTrial>();
    json truth = fhir::WriteCaseJson(t.write_case);
    truth["case"] = t.case_path;
    truth["case_id"] = t.write_case.case_id;
    return truth;
  }

  std::shared_ptr<const PreparedBody> Prepare(const Trial&, const Environment&) const override {
    return std::make_shared<PreparedBody>();  // the case was read at load; the tables are process-wide
  }

  std::unique_ptr<Outcome> Score(const Trial& trial, const PreparedBody&, std::string_view output,
                                 GradeContext&) const override {
    const fhir::WriteCase& c = trial.As<FhirWriteTrial>().write_case;
    const fhir::RxNormCatalog& catalog = fhir::DefaultCatalog();
    auto o = std::make_unique<WriteOutcome>();
    o->result = fhir::ScoreWrite(c, output, catalog, fhir::DefaultDoseLimits());
    const fhir::WriteResult& r = o->result;
    if (r.parsed && !r.coding.passed && !r.coded.empty() && r.coded != c.code) {
      const fhir::CatalogDrug* coded = catalog.Find(r.coded);
      const fhir::CatalogDrug* documented = catalog.Find(c.code);
      if (coded == nullptr)
        o->critical_errors.push_back({"wrong_drug",
                                      "RxNorm code " + r.coded + " is not in the site catalog (an invented code)",
                                      "coding", std::nullopt});
      else if (documented != nullptr && coded->ingredients != documented->ingredients)
        o->critical_errors.push_back({"wrong_drug",
                                      "coded as " + Quote(coded->display) + ", a different drug from the documented " +
                                          Quote(documented->display),
                                      "coding", std::nullopt});
    }
    if (r.parsed && !r.safety.passed && HasDosage(r.resource))
      o->critical_errors.push_back({"unsafe_dose", r.safety.reason, "safety", std::nullopt});
    o->score_total = Round4(r.score);
    return o;
  }

  void Render(const Trial&, const Outcome& outcome, JsonWriter& w) const override {
    const auto& o = static_cast<const WriteOutcome&>(outcome);
    w.Key("counts");
    w.BeginObject();
    w.Key("critical_errors");
    w.Uint(o.critical_errors.size());
    w.Key("dimensions");
    w.Int(4);
    w.Key("dimensions_passed");
    w.Int(o.result.dimensions_passed);
    w.EndObject();
    w.Key("passed");
    w.Bool(o.result.passed);
    w.Key("write");
    fhir::WriteReport(w, o.result);
  }

  json Methodology() const override {
    json ceilings = json::array();
    for (const fhir::DoseCeiling& d : fhir::DefaultDoseLimits().rows())
      ceilings.push_back({{"rxcui", d.rxcui.empty() ? json(nullptr) : json(d.rxcui)},
                          {"ingredient", d.ingredient.empty() ? json(nullptr) : json(d.ingredient)},
                          {"max", d.max ? json(*d.max) : json(nullptr)},
                          {"unit", d.unit},
                          {"period", d.period},
                          {"basis", d.basis},
                          {"source", d.source}});
    return {{"kind", "fhir_write"},
            {"description", description()},
            {"answer",
             "the JSON object with \"resourceType\": \"MedicationStatement\" anywhere in the output (alone, in "
             "a ``` fence, after prose); without one every dimension fails with the reason and the score is 0"},
            {"dimensions",
             {{"schema", "no finding from fhir_validate: size limits first (" +
                             std::to_string(fhir::kMaxResourceBytes) + " bytes, depth " +
                             std::to_string(fhir::kMaxDepth) + ", " + std::to_string(fhir::kMaxStringBytes) +
                             " bytes per string or key), then the HL7 FHIR R4 JSON schema's MedicationStatement "
                             "closure, then what it cannot say: status in the required value set, exactly one "
                             "medication[x], timing.repeat integers, periods and durations >= 0 with their units, no "
                             "empty object, empty array or null"},
              {"coding",
               "exactly one RxNorm coding (medicationCodeableConcept, or the contained Medication that "
               "medicationReference names), with the case's code and display (NFC, white space folded)"},
              {"constraints",
               "subject.reference is the case's subject; status is the documented one (active, completed, "
               "stopped, not-taken); dosage present exactly when the note documents a regimen"},
              {"safety",
               "each dosage entry (in sequence order) has one doseAndRate.doseQuantity in UCUM equal to the "
               "documented dose per administration (mass and volume units converted, counts and volumes "
               "through the coded product's catalog strength), doses per day from timing.repeat equal to the "
               "documented frequency (q6h = 4 per day; ranges must match), taper steps' boundsDuration, and "
               "the implied total within the drug's cited maximum (max_daily_dose); no cited row = "
               "unverifiable, fails; a dosage the note never documented is an invented dose and fails"},
              {"total", "score_total = passed dimensions / 4; passed only when all four pass"}}},
            {"critical_errors", {"unsafe_dose", "wrong_drug"}},
            {"critical_error_rules",
             {{"unsafe_dose",
               "the answer encodes a dosage and the safety dimension fails (wrong dose or frequency, over "
               "the labelled maximum, unverifiable, or a dose the note never documented); a missing "
               "dosage fails safety without being unsafe"},
              {"wrong_drug",
               "the coding fails with a code of different ingredients from the documented product, or a "
               "code the site catalog does not have"}}},
            {"dose_tolerance", fhir::kDoseTolerance},
            {"max_daily_dose", ceilings},
            {"site_catalog", {{"products", fhir::DefaultCatalog().size()}}}};
  }
};

}  // namespace

std::string WriteCaseContext(const fhir::WriteCase& c) {
  std::string text = "Subject: " + c.subject + "\n\nNote excerpt:\n" + c.input + "\n";
  const fhir::RxNormCatalog& catalog = fhir::DefaultCatalog();
  const fhir::CatalogDrug* documented = catalog.Find(c.code);
  if (documented == nullptr) return text;
  text += "\nSite catalog (RxNorm products with the same ingredients; code, term type, display):\n";
  for (const fhir::CatalogDrug& d : catalog.drugs())
    if (d.ingredients == documented->ingredients) text += d.code + "\t" + d.tty + "\t" + d.display + "\n";
  return text;
}

const Kind& FhirWriteKind() {
  static FhirWrite kind;
  return kind;
}

}  // namespace scribe
