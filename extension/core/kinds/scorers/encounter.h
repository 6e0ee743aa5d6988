// encounter.h — the encounter as every text kind prepares it once per trial: analysed, with the
// drugs and words it names (what a note may legitimately mention).
#pragma once

#include <string>
#include <string_view>
#include <unordered_set>

#include "kind.h"

namespace scribe {

struct PreparedEncounter {
  PreparedEncounter(std::string_view text, const Environment& env);
  AnalyzedText analyzed;
  std::unordered_set<std::string> drug_keys;  // ingredient key of every drug the encounter names
  StringSet words;      // lower-case words of the encounter
};

}  // namespace scribe
