// note.h — kind `note` (seed 000): a free-text scribe note graded against structured ground
// truth in three categories (docs/methodology.md):
//
//   score_drug         mean credit over expected medications (scorers/meds.h)
//   score_mental       captured flags / flags; a negated flag is contradicted (scorers/flags.h)
//   score_fabrication  max(0, 1 − triggered/(traps + deferred diagnoses) − 0.15 × unsupported drugs)
//   score_total        Σ weight × category, weights from the trial
//
// plus the allergy check and the trial's own critical errors. Trial keys: ground_truth
// {meds, allergies, mental_flags, deferred_dx, fabrication_traps}, weights, credit, critical_errors.
#pragma once

#include <string>
#include <vector>

#include "kind.h"
#include "scorers/allergies.h"
#include "scorers/critical_rules.h"
#include "scorers/fabrication.h"
#include "scorers/flags.h"
#include "scorers/meds.h"

namespace scribe {

struct Weights { double drug = 0, mental = 0, fabrication = 0; };

struct NoteTrial : TrialBody {
  std::vector<ExpectedMed> meds;
  std::vector<ExpectedAllergy> allergies;
  std::vector<MentalFlag> mental_flags;
  std::vector<std::string> deferred_dx;
  std::vector<Trap> traps;
  Weights weights;
  Credit credit;
  bool credit_overridden = false;
  std::vector<CriticalRule> critical_errors;
};

const Kind& NoteKind();

// The note body of a trial of kind note (tests and tools).
inline const NoteTrial& NoteOf(const Trial& t) { return t.As<NoteTrial>(); }

// Shared with other text kinds: ground_truth's allergies, flags, traps and deferred diagnoses
// parsed from a mapping, and the fabrication penalty per unsupported drug.
constexpr double kUnsupportedDrugPenalty = 0.15;

}  // namespace scribe
