// extract.h — drug mentions in free text, with dose, frequency, route, action and assertion.
//
// This is what `extract_drugs(text)` returns row by row and what grading compares with the
// ground truth. Windows: a drug's attributes are read forward to the next drug or the end of
// the sentence, then backward to the previous drug, list separator or sentence start; a
// mention inside parentheses reads only its parenthetical, and a drug name glossed in
// parentheses right after another ("ibuprofen (Advil) 400 mg") shares that drug's reading.
// Binding rules (coordination, parentheticals, allergy context, medication lists) are vocabulary
// in corpus/rules/binding.yaml; docs/methodology.md §1 states them.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "assertion.h"
#include "rules.h"
#include "sig.h"
#include "terminology.h"
#include "text.h"

namespace scribe {

// The key of a phantom mention: this prefix, then the word as written in lower case.
inline constexpr std::string_view kPhantomKeyPrefix = "phantom:";

struct DrugMention {
  std::string mention;        // the text as written
  size_t tok_begin = 0, tok_end = 0;
  uint32_t char_begin = 0, char_end = 0;
  // Terminology match; phantom mentions have none.
  std::optional<TermMatch> match;
  bool phantom = false;       // drug-shaped unknown word followed by a dose
  std::string drug;           // comparison names ("sertraline", "lithium", "penicillins"), empty for phantoms
  std::string rxcui;          // ingredient RxCUIs as matched, joined by " / ", empty for phantoms and classes
  std::string key;            // comparison key ("36437", "161+5489", "class:penicillins", "phantom:zyntrafex")
  std::string matched_name;   // the terminology name that matched ("Zoloft")
  std::string drug_class;     // allergen class id when the mention names a class ("penicillins"), else empty
  std::string salt;           // salt or ester the name states ("tartrate", "succinate", "carbonate"), else empty
  std::vector<Dose> doses;    // every dose in the window, primary first
  std::optional<Dose> dose;
  Frequency frequency;
  std::optional<std::string> route;
  std::optional<std::string> action;
  Assertion assertion = Assertion::kAffirmed;
  // An allergy cue binds to the mention: its clause outside parentheses with only list words
  // between ("allergic to penicillin and sulfa", "PCN-class allergy"), its own or a following
  // parenthetical ("(amoxicillin allergy)", "penicillin (allergy: hives)"), or an allergy heading.
  bool in_allergy_context = false;
  // The mention sits on a medication-list line: under a "Medications:"-style heading, or a list
  // item that is just this drug and its sig ("- clonazepam 0.5 mg twice daily as needed").
  // The grader may read such a mention with no action of its own as recorded as active.
  bool on_med_list = false;
  bool in_parenthetical = false;  // inside parentheses (a gloss "(Advil)" included)
  bool gloss = false;             // a name in parentheses right after another drug's name; shares its reading
  bool operator==(const DrugMention&) const = default;
};

// Everything the grader needs from one text, computed once.
struct AnalyzedText {
  TokenizedText text;
  std::vector<uint8_t> assertion_bits;
  std::vector<DrugMention> drugs;
};

// What AnalyzeText reads: all the grader needs, or only the drug mentions (extract_drugs), for
// which assertion scopes are read only in the sentences that hold a mention (assertion_bits are
// then 0 elsewhere; the drugs are the same).
enum class Reading { kAll, kDrugs };

AnalyzedText AnalyzeText(std::string_view text, const Rules& rules, const Terminology& terminology,
                         const AssertionAnalyzer& assertion, Reading reading = Reading::kAll);

// With the compiled-in rules and terminology.
AnalyzedText AnalyzeText(std::string_view text);
// AnalyzeText(text).drugs, read as Reading::kDrugs: what extract_drugs(text) returns.
std::vector<DrugMention> ExtractDrugs(std::string_view text);
// The tokens view the text: a temporary string is refused (see Tokenize).
template <class S, class... Rest>
  requires TemporaryString<S>
AnalyzedText AnalyzeText(S&& text, Rest&&...) = delete;

// A whole text read as the sig of one unnamed drug ("Take 2 tablets by mouth every 6 hours as
// needed"): the same spelling tolerance and sig reading as a drug's window. For ground-truth sig
// strings and the sig test sets (scripts/eval_sigs.py).
Sig ReadWholeSig(std::string_view text, const Rules& rules, const Terminology& terminology);
Sig ReadWholeSig(std::string_view text);

}  // namespace scribe
