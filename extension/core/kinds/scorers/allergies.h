// allergies.h — the patient's allergies and the allergy check (docs/methodology.md, Allergies).
//
// Allergies are not a score category: a known allergy the note does not record as an allergy is
// a critical error (dropped_allergy), and one the note denies ("NKDA", "no known allergies",
// "not allergic to penicillin") is a critical error (contradicted_allergy). A substance counts as
// recorded only in allergy context: a sentence with an allergy cue ("allergic", "allergy",
// "reaction to", …) or under a heading line such as "Allergies:".
#pragma once

#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "evidence.h"
#include "kind.h"
#include "phrases.h"
#include "schema.h"

namespace scribe {

struct ExpectedAllergy {
  std::string substance, reaction;
};

ExpectedAllergy ParseExpectedAllergy(const YAML::Node& n, const SchemaPath& path);
nlohmann::json ExpectedAllergyJson(const ExpectedAllergy& a);

class AllergyChecker {
 public:
  AllergyChecker(const std::vector<ExpectedAllergy>& allergies, const Environment& env);
  struct Result {
    std::string status;  // captured, missed, contradicted
    EvidenceList evidence;
  };
  // One result per allergy; dropped and contradicted allergies append critical errors.
  std::vector<Result> Score(const AnalyzedText& note, std::vector<CriticalError>& critical,
                            const PhraseStarts& starts) const;
  // Appends the matchers of its phrase sets (for a MatcherStarts group).
  void AddMatchers(std::vector<const PhraseMatcher*>& out) const;
  // Ingredient keys of the allergy substances that are drugs ("" for the others): a note may name
  // them without their being unsupported drugs.
  const std::vector<std::string>& drug_keys() const { return keys_; }

 private:
  const Terminology& terminology_;
  std::vector<ExpectedAllergy> allergies_;
  std::vector<PhraseSet> phrases_;
  std::vector<std::string> keys_;
  std::vector<bool> is_drug_;
  PhraseSet cues_, no_allergies_, no_drug_allergies_;
};

// An allergy as published: {"evidence", "evidence_more" (when capped), "key", "reaction", "status",
// "substance"}.
void WriteAllergy(JsonWriter& w, const ExpectedAllergy& allergy, const AllergyChecker::Result& result);

}  // namespace scribe
