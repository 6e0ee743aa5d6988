// critical_rules.cpp — trial-specific critical errors (see critical_rules.h).
#include "critical_rules.h"

#include <algorithm>
#include <set>

#include "meds.h"

namespace scribe {

using nlohmann::json;

std::vector<CriticalRule> ParseCriticalRules(const YAML::Node& ce, const SchemaPath& c, const Rules& rules,
                                             const Terminology& terminology) {
  std::vector<CriticalRule> out;
  if (!ce || ce.IsNull()) return out;
  if (!ce.IsSequence()) c.Fail("expected a list");
  std::set<std::string> ids;
  for (size_t i = 0; i < ce.size(); ++i) {
    SchemaPath ci = c.Index(i);
    if (!ce[i].IsMap()) ci.Fail("expected a mapping with id, description and med/actions or asserts");
    CheckKeys(ce[i], ci, {"id", "description", "med", "actions", "asserts"});
    CriticalRule r;
    r.id = RequiredString(ce[i], "id", ci);
    if (!ids.insert(r.id).second) ci.Key("id").Fail("duplicate critical error id " + Quote(r.id));
    r.description = std::string(Trim(RequiredString(ce[i], "description", ci)));
    r.med = OptionalString(ce[i], "med", ci);
    r.actions = StringList(ce[i]["actions"], ci.Key("actions"));
    r.asserts = StringList(ce[i]["asserts"], ci.Key("asserts"));
    if (r.med.empty() == r.asserts.empty()) ci.Fail("needs either med (with actions) or asserts");
    if (!r.med.empty() && r.actions.empty()) ci.Key("actions").Fail("is required with med");
    if (!r.med.empty()) ResolveDrugName(r.med, terminology, r.med_keys);
    for (std::string& a : r.actions) {
      std::string canonical = rules.CanonicalAction(a);
      if (canonical.empty()) ci.Key("actions").Fail("unknown action " + Quote(a));
      a = canonical;
    }
    out.push_back(std::move(r));
  }
  return out;
}

json CriticalRuleJson(const CriticalRule& r) {
  json j = {{"id", r.id}, {"description", r.description}};
  if (!r.med.empty()) {
    j["med"] = r.med;
    j["actions"] = r.actions;
  }
  if (!r.asserts.empty()) j["asserts"] = r.asserts;
  return j;
}

CriticalRuleChecker::CriticalRuleChecker(const std::vector<CriticalRule>& rules, const Rules& rule_tables) : rules_(rules) {
  for (const CriticalRule& r : rules) phrases_.emplace_back(r.asserts, rule_tables);
}

void CriticalRuleChecker::AddMatchers(std::vector<const PhraseMatcher*>& out) const {
  for (const PhraseSet& set : phrases_) out.push_back(&set.matcher());
}

void CriticalRuleChecker::Score(const AnalyzedText& note, std::vector<CriticalError>& critical,
                                const PhraseStarts& starts) const {
  for (size_t i = 0; i < rules_.size(); ++i) {
    const CriticalRule& r = rules_[i];
    std::optional<Evidence> ev;
    if (!r.med.empty()) {
      // A medication-list line with no action of its own records the drug as active, unless
      // the note stops it somewhere ("Lisinopril 20 mg daily" listed, "Discontinued today").
      bool stopped = false;
      for (const DrugMention& m : note.drugs)
        stopped = stopped || (ForPatient(m.assertion) && m.action == std::string("stop") &&
                              std::find(r.med_keys.begin(), r.med_keys.end(), m.key) != r.med_keys.end());
      for (const DrugMention& m : note.drugs) {
        // A mention in allergy context ("Start doxycycline (amoxicillin allergy)") takes no verb;
        // a past or conditional one ("lisinopril was added 3 months ago", "if it stays high,
        // start X") is no action of this visit.
        if (m.assertion != Assertion::kAffirmed || m.in_allergy_context) continue;
        std::optional<std::string> action = m.action;
        if (!action && m.on_med_list && !stopped) action = "continue";
        if (!action) continue;
        if (std::find(r.med_keys.begin(), r.med_keys.end(), m.key) == r.med_keys.end()) continue;
        if (std::find(r.actions.begin(), r.actions.end(), *action) == r.actions.end()) continue;
        ev = MakeEvidence(note, m.tok_begin, m.tok_end);
        ev->context = SentenceOf(note, m.tok_begin);
        break;
      }
    } else {
      for (const auto& hit : phrases_[i].Find(note.text, starts)) {
        if (!ForPatient(AssertionAnalyzer::Resolve(note.assertion_bits, hit.begin, hit.end))) continue;
        ev = MakeEvidence(note, hit.begin, hit.end);
        break;
      }
    }
    if (ev) critical.push_back({"trial_rule", r.description, r.id, ev});
  }
}

}  // namespace scribe
