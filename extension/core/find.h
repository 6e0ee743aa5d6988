// find.h — a phrase read in any text the way the grader reads a trap phrase: every match (with
// clinical synonyms and plural folding, as PhraseSet), its code-point offsets, its assertion
// and the trigger that decided it. This is what `scribe_find(text, phrase)` returns row by row.
//
//   for (const PhraseFinding& f : FindPhrase("Denies chest pain.", "chest pain"))
//     // f.mention "chest pain", f.char_begin 7, f.char_end 17, f.assertion kNegated, f.trigger "Denies"
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "assertion.h"
#include "rules.h"

namespace scribe {

struct PhraseFinding {
  std::string mention;                    // the text as written
  uint32_t char_begin = 0, char_end = 0;  // Unicode code points, 0-based, end exclusive
  Assertion assertion = Assertion::kAffirmed;
  std::optional<std::string> trigger;  // the cue as written; none when affirmed
};

// Every match of `phrase` in `text`, left to right, non-overlapping. An empty phrase matches nothing.
std::vector<PhraseFinding> FindPhrase(std::string_view text, std::string_view phrase, const Rules& rules,
                                      const AssertionAnalyzer& assertion);

// With the compiled-in rules.
std::vector<PhraseFinding> FindPhrase(std::string_view text, std::string_view phrase);

}  // namespace scribe
