// fabrication.h — what a note must not assert (docs/methodology.md, Fabrication).
//
// Traps are phrases the patient explicitly denied; asserting one for the patient fabricates. A
// deferred diagnosis asserted as made fabricates. A drug the note documents for the patient that
// the ground truth does not list is unsupported: a phantom (no good RxNorm match) or a real drug
// the encounter never names.
#pragma once

#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>

#include <set>
#include <string>
#include <vector>

#include "encounter.h"
#include "evidence.h"
#include "phrases.h"
#include "schema.h"

namespace scribe {

struct Trap {
  std::string phrase;
  std::vector<std::string> variants;
  bool match_any = false;      // "match: any": any mention triggers, whatever its assertion
  When when = When::kCurrent;  // a past mention ("former alcohol use") triggers only `when: past`/`any`
};

Trap ParseTrap(const YAML::Node& n, const SchemaPath& path);
nlohmann::json TrapJson(const Trap& t);  // the plain string form when that is all it is

// Traps and deferred diagnoses compiled for matching.
class AssertedPhrases {
 public:
  AssertedPhrases(const std::vector<Trap>& traps, const std::vector<std::string>& deferred_dx, const Rules& rules);
  struct Hit {
    Evidence evidence;
    bool fires = false;  // counts against the note
  };
  struct Result {
    std::vector<Hit> hits;  // capped at kMaxEvidencePerItem
    size_t more = 0;
    bool triggered = false;
  };
  std::vector<Result> ScoreTraps(const AnalyzedText& note, const PhraseStarts& starts) const;
  // Deferred diagnoses fire when asserted for the patient, now or in the past ("history of
  // bipolar disorder" asserts a diagnosis that was never made).
  std::vector<Result> ScoreDeferred(const AnalyzedText& note, const PhraseStarts& starts) const;
  // Appends the matchers of its phrase sets (for a MatcherStarts group).
  void AddMatchers(std::vector<const PhraseMatcher*>& out) const;

 private:
  std::vector<Trap> traps_;
  std::vector<PhraseSet> trap_phrases_, deferred_phrases_;
};

// {"evidence" (each span with "triggers"), "evidence_more" (when capped), "key", "match", "phrase",
// "triggered"}
void WriteTrapResult(JsonWriter& w, const Trap& trap, const AssertedPhrases::Result& r);
// {"asserted", "diagnosis", "evidence" (each span with "asserted"), "evidence_more", "key"}
void WriteDeferredResult(JsonWriter& w, const std::string& diagnosis, const AssertedPhrases::Result& r);

// A drug documented for the patient that the trial does not expect.
struct UnsupportedDrug {
  DrugMention mention;
  std::string kind;    // phantom, unsupported
  std::string reason;
  Validation validation;
};

// Every such drug, once per ingredient (or phantom word), in note order. `expected_keys` are the
// ingredient keys of the expected medications, `allowed_keys` further keys a note may name
// (allergy substances).
std::vector<UnsupportedDrug> FindUnsupportedDrugs(const AnalyzedText& note, const PreparedEncounter& encounter,
                                                  const std::set<std::string>& expected_keys,
                                                  const std::vector<std::string>& allowed_keys, DrugValidator& validator);
// The mention (WriteMention) with "key", "kind", "reason" and "validation".
void WriteUnsupportedDrug(JsonWriter& w, const UnsupportedDrug& u);

// An unsupported drug the note documents as started or increased (prescribed, sent, given): a
// prescription that never happened is a critical invented completed action.
std::vector<CriticalError> InventedPrescriptions(const AnalyzedText& note, const std::vector<UnsupportedDrug>& unsupported);

}  // namespace scribe
