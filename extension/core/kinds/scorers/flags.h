// flags.h — mental-health flags and the capture scorer (docs/methodology.md, Mental-Health Capture).
//
// A flag is captured when one of its phrases is affirmed for the patient in the note (now, unless
// the flag says `when: past` or `when: any`: "former smoker" does not capture current smoking), and
// contradicted — no credit and a critical error — when the note only negates it ("No SI" for a
// patient with passive suicidal ideation). "denies active SI" is about another thing than
// "passive suicidal ideation": a qualifier word before a hit that differs from the flag's own
// qualifier makes the hit not count.
#pragma once

#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>

#include <string>
#include <unordered_set>
#include <vector>

#include "evidence.h"
#include "phrases.h"
#include "schema.h"

namespace scribe {

struct MentalFlag {
  std::string flag;
  std::vector<std::string> keywords;
  When when = When::kCurrent;  // a past mention captures only a flag marked `when: past` or `any`
};

MentalFlag ParseMentalFlag(const YAML::Node& n, const SchemaPath& path);
nlohmann::json MentalFlagJson(const MentalFlag& f);

// Flags compiled for matching.
class FlagMatcher {
 public:
  FlagMatcher(const std::vector<MentalFlag>& flags, const Rules& rules);
  struct Result {
    std::string status;  // captured, contradicted, missed
    EvidenceList evidence;
  };
  // One result per flag; a contradicted flag appends a critical error.
  std::vector<Result> Score(const AnalyzedText& note, std::vector<CriticalError>& critical,
                            const PhraseStarts& starts) const;
  size_t size() const { return flags_.size(); }
  // Appends the matchers of its phrase sets (for a MatcherStarts group).
  void AddMatchers(std::vector<const PhraseMatcher*>& out) const;

 private:
  std::vector<MentalFlag> flags_;
  std::vector<PhraseSet> phrases_;
  std::vector<std::vector<std::string>> words_;  // flag name words, for qualifier checks
  StringSet qualifiers_;
};

// A flag as published: {"evidence", "evidence_more" (when capped), "flag", "key", "status"}.
void WriteFlag(JsonWriter& w, const MentalFlag& flag, const FlagMatcher::Result& result);

}  // namespace scribe
