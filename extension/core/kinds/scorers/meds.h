// meds.h — expected medications and the drug-accuracy scorer (docs/methodology.md, Drug Accuracy).
//
// A trial's medication (ground_truth.meds[i]) is parsed with the normalisers that read notes,
// so "two 200 mg tablets" in a trial and in a note compare in one vocabulary. Scoring finds the
// note's mention of the same ingredient (brand ≡ generic, misspellings by approximate match)
// that earns most credit: name, dose, frequency (route, action when the trial weights them).
#pragma once

#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "evidence.h"
#include "schema.h"
#include "sig.h"
#include "terminology.h"
#include "validator.h"

namespace scribe {

struct ExpectedMed {
  std::string name;
  std::string dose_text, frequency_text, route_text, action_text;  // as written ("" when absent)
  std::vector<std::string> synonyms;
  // Resolved.
  std::optional<Dose> dose;
  std::optional<Frequency> frequency;
  std::optional<std::string> route, action;
  std::vector<std::string> keys;   // ingredient keys of the name and its synonyms
  std::string drug, rxcui;         // ingredient names and RxCUIs for display
  bool in_terminology = false;
  // The "expected" member of every result that reports this medication (WriteMed): the fields
  // above as JSON text, written once by ParseExpectedMed after it has set them all. Empty for a
  // medication made otherwise, which WriteMed then writes field by field.
  std::string expected_json;
};

// Credit per component of a medication (a trial may override; must sum to 1).
struct Credit { double name = 0.5, dose = 0.25, frequency = 0.25, route = 0, action = 0; };

// Parses one medication mapping {name, dose, frequency, route, action, synonyms}.
ExpectedMed ParseExpectedMed(const YAML::Node& n, const SchemaPath& path, const Rules& rules,
                             const Terminology& terminology);
// The medication as written in the trial.
nlohmann::json ExpectedMedJson(const ExpectedMed& med);
// Appends the ingredient key of a drug name (a name-only key "name:<normalised>" when the offline
// terminology does not know it, so a newer drug still matches notes that write the same name).
void ResolveDrugName(const std::string& name, const Terminology& terminology, std::vector<std::string>& keys,
                     std::string* drug = nullptr, std::string* rxcui = nullptr, bool* known = nullptr);

// The key a mention is compared by: its ingredient key, or "name:<word>" for a phantom.
std::string ComparisonKey(const DrugMention& m);
bool SameDrug(const ExpectedMed& med, const DrugMention& m);

struct MedCheck {
  std::string part;  // name, dose, frequency, route, action
  double weight = 0;
  bool pass = false;
  bool found = true;  // the note gives a value for the part (a failed check with a value contradicts)
  std::string why;
};

struct MedResult {
  std::optional<DrugMention> found;  // the best mention for the patient
  std::vector<MedCheck> checks;
  double credit = 0;                 // Σ weight of passed checks
  std::string status;                // correct, partial, missing
  std::string missing_why;
  Validation validation;
};

// The note's best mention of `med`, with its credit.
MedResult ScoreMed(const ExpectedMed& med, const Credit& credit, const AnalyzedText& note, DrugValidator& validator);
// A dose ten times (or a tenth of) the expected one, the first such mention: a critical error.
std::optional<CriticalError> DoseMagnitudeError(const ExpectedMed& med, const AnalyzedText& note);
// {"checks", "credit", "expected", "found", "key", "status", "validation"} as published.
void WriteMed(JsonWriter& w, const ExpectedMed& med, const MedResult& result);

}  // namespace scribe
