// extract.h — drug mentions in free text, with dose, frequency, route, action and assertion.
//
// This is what `extract_drugs(text)` returns row by row and what grading compares with the
// ground truth. Windows: a drug's attributes are read forward to the next drug or the end of
// the sentence, then backward to the previous drug, list separator or sentence start.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "assertion.h"
#include "rules.h"
#include "sig.h"
#include "terminology.h"
#include "text.h"

namespace scribe {

struct DrugMention {
  std::string mention;        // the text as written
  size_t tok_begin = 0, tok_end = 0;
  uint32_t char_begin = 0, char_end = 0;
  // Terminology match; phantom mentions have none.
  std::optional<TermMatch> match;
  bool phantom = false;       // drug-shaped unknown word followed by a dose
  std::string drug;           // ingredient names ("sertraline"), empty for phantoms
  std::string rxcui;          // ingredient RxCUIs joined by " / ", empty for phantoms
  std::string key;            // ingredient key for comparisons ("36437", "161+5489", "phantom:zyntrafex")
  std::string matched_name;   // the terminology name that matched ("Zoloft")
  std::vector<Dose> doses;    // every dose in the window, primary first
  std::optional<Dose> dose;
  Frequency frequency;
  std::optional<std::string> route;
  std::optional<std::string> action;
  Assertion assertion = Assertion::kAffirmed;
};

// Everything the grader needs from one text, computed once.
struct AnalyzedText {
  TokenizedText text;
  std::vector<uint8_t> assertion_bits;
  std::vector<DrugMention> drugs;
};

AnalyzedText AnalyzeText(std::string_view text, const Rules& rules, const Terminology& terminology,
                         const AssertionAnalyzer& assertion);

// With the compiled-in rules and terminology.
AnalyzedText AnalyzeText(std::string_view text);

}  // namespace scribe
