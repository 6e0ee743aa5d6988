// allergies.cpp — the allergy check (see allergies.h).
#include "allergies.h"

#include <algorithm>

namespace scribe {
namespace {

using nlohmann::json;

// Per token of `note`: is it in allergy context? One forward pass (linear in the note): a
// sentence containing the start of a cue, or a sentence governed by the nearest line above it
// that is a heading ("…:") holding a cue, or by the first line of its block (after a blank line)
// when that line starts with a cue.
std::vector<bool> AllergyContext(const AnalyzedText& note, const std::vector<PhraseSet::Hit>& cues) {
  const auto& toks = note.text.tokens;
  const size_t n = toks.size();
  std::vector<bool> cue_at(n, false);
  for (const auto& hit : cues) cue_at[hit.begin] = true;
  // W at each line start: what a sentence below it (in the same block, before the next heading)
  // inherits; governing[k] = W of the latest line start < k.
  std::vector<bool> governing(n + 1, false);
  bool w = false, have_line = false;
  for (size_t k = 0; k < n; ++k) {
    governing[k] = have_line && w;
    if (!toks[k].line_start) continue;
    size_t e = k + 1;
    while (e < n && !toks[e].line_start) ++e;
    bool heading = toks[e - 1].kind == TokenKind::kPunct && toks[e - 1].norm == ":";
    if (toks[k].blank_line_before) w = cue_at[k];
    else if (heading) w = std::any_of(cue_at.begin() + static_cast<std::ptrdiff_t>(k), cue_at.begin() + static_cast<std::ptrdiff_t>(e), [](bool b) { return b; });
    else if (!have_line) w = false;
    have_line = true;
  }
  std::vector<bool> out(n, false);
  for (size_t s = 0; s < note.text.sentence_begin.size(); ++s) {
    size_t sb = note.text.sentence_begin[s], se = note.text.sentence_end[s];
    bool in = sb > 0 && governing[sb];
    for (size_t k = sb; k < se && !in; ++k) in = cue_at[k];
    for (size_t k = sb; k < se; ++k) out[k] = in;
  }
  return out;
}

}  // namespace

ExpectedAllergy ParseExpectedAllergy(const YAML::Node& n, const SchemaPath& c) {
  ExpectedAllergy a;
  if (n.IsScalar()) {
    a.substance = std::string(Trim(n.as<std::string>()));
    if (a.substance.empty()) c.Fail("must not be empty");
  } else if (n.IsMap()) {
    CheckKeys(n, c, {"substance", "reaction"});
    a.substance = std::string(Trim(RequiredString(n, "substance", c)));
    a.reaction = OptionalString(n, "reaction", c);
  } else {
    c.Fail("expected a mapping with substance and reaction");
  }
  return a;
}

json ExpectedAllergyJson(const ExpectedAllergy& a) {
  json j = {{"substance", a.substance}};
  if (!a.reaction.empty()) j["reaction"] = a.reaction;
  return j;
}

AllergyChecker::AllergyChecker(const std::vector<ExpectedAllergy>& allergies, const Environment& env)
    : terminology_(env.terminology),
      allergies_(allergies),
      cues_(env.rules.assertion.allergy_cues, env.rules),
      no_allergies_(env.rules.assertion.no_allergies, env.rules),
      no_drug_allergies_(env.rules.assertion.no_drug_allergies, env.rules) {
  for (const ExpectedAllergy& a : allergies) {
    phrases_.emplace_back(std::vector<std::string>{a.substance}, env.rules);
    auto m = env.terminology.Lookup(a.substance);
    bool drug = m && m->kind != MatchKind::kApproximate;
    keys_.push_back(drug ? env.terminology.IngredientKey(m->concept_id) : "");
    // A drug allergy ("NKDA" contradicts it): a drug, or a drug class such as sulfa or NSAIDs.
    is_drug_.push_back(env.terminology.FindClass(a.substance) != nullptr ||
                       !env.terminology.IsNonRxnormSubstance(NormalizePhrase(a.substance)));
  }
}

void AllergyChecker::AddMatchers(std::vector<const PhraseMatcher*>& out) const {
  for (const PhraseSet* set : {&cues_, &no_allergies_, &no_drug_allergies_}) out.push_back(&set->matcher());
  for (const PhraseSet& set : phrases_) out.push_back(&set.matcher());
}

std::vector<AllergyChecker::Result> AllergyChecker::Score(const AnalyzedText& note, std::vector<CriticalError>& critical,
                                                          const PhraseStarts& starts) const {
  std::vector<Result> out;
  if (allergies_.empty()) return out;
  const std::vector<bool> context = AllergyContext(note, cues_.Find(note.text, starts));
  auto no_all = no_allergies_.Find(note.text, starts);
  auto no_drug = no_drug_allergies_.Find(note.text, starts);
  for (size_t i = 0; i < allergies_.size(); ++i) {
    const ExpectedAllergy& a = allergies_[i];
    Result r;
    bool recorded = false, negated = false;
    std::optional<Evidence> first_negated;
    std::vector<std::pair<size_t, size_t>> hits;
    for (const auto& hit : phrases_[i].Find(note.text, starts)) hits.emplace_back(hit.begin, hit.end);
    // The same drug, or a class that covers it ("PCN allergy" records an amoxicillin allergy);
    // a narrower drug does not record a class allergy ("amoxicillin" for penicillins would let
    // penicillin V through).
    if (!keys_[i].empty())
      for (const DrugMention& m : note.drugs)
        if (m.key == keys_[i] || (Terminology::IsClassKey(m.key) && terminology_.ClassCovers(m.key, keys_[i])))
          hits.emplace_back(m.tok_begin, m.tok_end);
    std::sort(hits.begin(), hits.end());
    hits.erase(std::unique(hits.begin(), hits.end()), hits.end());
    for (const auto& [b, e] : hits) {
      if (!context[b]) continue;
      Evidence ev = MakeEvidence(note, b, e);
      if (ForPatient(ev.assertion)) recorded = true;
      if (ev.assertion == Assertion::kNegated) {
        negated = true;
        if (!first_negated) first_negated = ev;
      }
      r.evidence.Add(std::move(ev));
    }
    r.status = recorded ? "captured" : "missed";
    std::optional<Evidence> contra;
    if (!no_all.empty()) contra = MakeEvidence(note, no_all.front().begin, no_all.front().end);
    else if (!no_drug.empty() && is_drug_[i]) contra = MakeEvidence(note, no_drug.front().begin, no_drug.front().end);
    if (contra || (negated && !recorded)) {
      r.status = "contradicted";
      if (!contra) contra = first_negated;
      critical.push_back({"contradicted_allergy", "the note denies the patient's " + a.substance + " allergy", "", contra});
    } else if (!recorded) {
      critical.push_back({"dropped_allergy",
                          "the " + a.substance + " allergy" + (a.reaction.empty() ? "" : " (" + a.reaction + ")") +
                              " is not recorded as an allergy",
                          "", std::nullopt});
    }
    out.push_back(std::move(r));
  }
  return out;
}

void WriteAllergy(JsonWriter& w, const ExpectedAllergy& a, const AllergyChecker::Result& r) {
  w.BeginObject();
  WriteEvidenceMembers(w, r.evidence);
  w.Key("key");
  w.Concat({"allergy:", a.substance});
  w.Key("reaction");
  w.StringOrNull(a.reaction);
  w.Key("status");
  w.String(r.status);
  w.Key("substance");
  w.String(a.substance);
  w.EndObject();
}

}  // namespace scribe
