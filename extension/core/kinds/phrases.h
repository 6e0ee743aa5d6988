// phrases.h — a phrase and its equivalent wordings, compiled once and found in any text.
//
//   PhraseSet traps({"chest pain", "syncope"}, DefaultRules());
//   for (auto hit : traps.Find(note.text)) …   // token spans, longest match first, left to right
//
// Equivalents: the clinical synonyms of corpus/rules/clinical_synonyms.tsv as whole phrases and
// as one sub-phrase substitution ("passive suicidal ideation" also matches "passive SI"), plural
// folding ("palpitations" ≡ "palpitation"). Every trial phrase (flags, traps, deferred
// diagnoses, allergies, critical rules, rubric items) is matched this way.
#pragma once

#include <string>
#include <vector>

#include "rules.h"
#include "text.h"

namespace scribe {

// Where each of a group of phrase sets may start a match in one text: group.Find of the text's
// tokens, found once for every set of the group (a trial's flags, traps, allergies and critical
// rules) instead of once per set.
using PhraseStarts = MatcherStarts::Found;

// Every equivalent phrasing of a phrase: itself, whole-phrase synonyms, one sub-phrase swap.
std::vector<std::string> ExpandPhrase(const std::string& phrase, const Rules& rules);

class PhraseSet {
 public:
  PhraseSet() : matcher_(true) {}
  PhraseSet(const std::vector<std::string>& phrases, const Rules& rules);
  struct Hit {
    size_t begin, end;  // tokens
    size_t phrase = 0;  // index of the phrase (in the constructor's list) that matched
  };
  std::vector<Hit> Find(const TokenizedText& text) const;
  // The same, trying only this set's starts (group.Find of the text's tokens) when the group
  // holds its matcher: one pass over a note finds where all of a trial's sets may match.
  std::vector<Hit> Find(const TokenizedText& text, const PhraseStarts& starts) const;
  const PhraseMatcher& matcher() const { return matcher_; }
  bool empty() const { return matcher_.empty(); }

 private:
  PhraseMatcher matcher_;
  std::vector<size_t> phrase_of_;  // matcher id -> phrase index
};

}  // namespace scribe
