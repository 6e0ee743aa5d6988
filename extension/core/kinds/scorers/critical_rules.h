// critical_rules.h — a trial's own critical errors, defined in advance (critical_errors: in the
// trial file). A rule fires on a medication documented with one of its actions ("amoxicillin
// started" for a patient allergic to penicillin), or on a phrase affirmed for the patient.
#pragma once

#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "evidence.h"
#include "phrases.h"
#include "schema.h"
#include "terminology.h"

namespace scribe {

struct CriticalRule {
  std::string id, description, med;
  std::vector<std::string> actions;   // canonical
  std::vector<std::string> asserts;
  std::vector<std::string> med_keys;  // resolved ingredient keys of `med`
};

// Parses the critical_errors list (ids unique within the trial).
std::vector<CriticalRule> ParseCriticalRules(const YAML::Node& n, const SchemaPath& path, const Rules& rules,
                                             const Terminology& terminology);
nlohmann::json CriticalRuleJson(const CriticalRule& r);

class CriticalRuleChecker {
 public:
  CriticalRuleChecker(const std::vector<CriticalRule>& rules, const Rules& rule_tables);
  // Appends a trial_rule critical error for every rule the note breaks.
  void Score(const AnalyzedText& note, std::vector<CriticalError>& critical, const PhraseStarts& starts) const;
  // Appends the matchers of its phrase sets (for a MatcherStarts group).
  void AddMatchers(std::vector<const PhraseMatcher*>& out) const;

 private:
  std::vector<CriticalRule> rules_;
  std::vector<PhraseSet> phrases_;
};

}  // namespace scribe
