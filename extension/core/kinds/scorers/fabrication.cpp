// fabrication.cpp — traps, deferred diagnoses and unsupported drugs (see fabrication.h).
#include "fabrication.h"

#include <algorithm>

#include "meds.h"

namespace scribe {

using nlohmann::json;

Trap ParseTrap(const YAML::Node& n, const SchemaPath& c) {
  Trap trap;
  if (n.IsScalar()) {
    trap.phrase = std::string(Trim(n.as<std::string>()));
    if (trap.phrase.empty()) c.Fail("must not be empty");
  } else if (n.IsMap()) {
    CheckKeys(n, c, {"phrase", "variants", "match", "when"});
    trap.phrase = std::string(Trim(RequiredString(n, "phrase", c)));
    trap.variants = StringList(n["variants"], c.Key("variants"));
    std::string match = OptionalString(n, "match", c);
    if (!match.empty() && match != "affirmed" && match != "any") c.Key("match").Fail("must be affirmed or any, got " + Quote(match));
    trap.match_any = match == "any";
    trap.when = ParseWhen(n, c);
  } else {
    c.Fail("expected a phrase or a mapping with phrase, variants, match");
  }
  return trap;
}

json TrapJson(const Trap& t) {
  if (t.variants.empty() && !t.match_any && t.when == When::kCurrent) return t.phrase;
  json j = {{"phrase", t.phrase}};
  if (!t.variants.empty()) j["variants"] = t.variants;
  if (t.match_any) j["match"] = "any";
  if (t.when != When::kCurrent) j["when"] = WhenName(t.when);
  return j;
}

AssertedPhrases::AssertedPhrases(const std::vector<Trap>& traps, const std::vector<std::string>& deferred_dx,
                                 const Rules& rules)
    : traps_(traps) {
  for (const Trap& t : traps) {
    std::vector<std::string> phrases{t.phrase};
    phrases.insert(phrases.end(), t.variants.begin(), t.variants.end());
    trap_phrases_.emplace_back(phrases, rules);
  }
  for (const std::string& d : deferred_dx) deferred_phrases_.emplace_back(std::vector<std::string>{d}, rules);
}

namespace {

AssertedPhrases::Result Collect(const PhraseSet& set, const AnalyzedText& note, const PhraseStarts& starts,
                                bool match_any, When when) {
  AssertedPhrases::Result r;
  for (const auto& hit : set.Find(note.text, starts)) {
    Evidence e = MakeEvidence(note, hit.begin, hit.end);
    bool fires = match_any || Fits(when, e.assertion);
    r.triggered = r.triggered || fires;
    if (r.hits.size() < kMaxEvidencePerItem) r.hits.push_back({std::move(e), fires});
    else ++r.more;
  }
  return r;
}

// The members "evidence" (each hit with `flag`: whether it fires) and "evidence_more" (when
// capped).
void WriteHits(JsonWriter& w, const AssertedPhrases::Result& r, std::string_view flag) {
  w.Key("evidence");
  w.BeginArray();
  for (const auto& h : r.hits) WriteEvidence(w, h.evidence, flag, h.fires);
  w.EndArray();
  if (r.more) {
    w.Key("evidence_more");
    w.Uint(r.more);
  }
}

}  // namespace

std::vector<AssertedPhrases::Result> AssertedPhrases::ScoreTraps(const AnalyzedText& note,
                                                                 const PhraseStarts& starts) const {
  std::vector<Result> out;
  for (size_t i = 0; i < traps_.size(); ++i)
    out.push_back(Collect(trap_phrases_[i], note, starts, traps_[i].match_any, traps_[i].when));
  return out;
}

std::vector<AssertedPhrases::Result> AssertedPhrases::ScoreDeferred(const AnalyzedText& note,
                                                                    const PhraseStarts& starts) const {
  std::vector<Result> out;
  for (const PhraseSet& set : deferred_phrases_) out.push_back(Collect(set, note, starts, false, When::kAny));
  return out;
}

void AssertedPhrases::AddMatchers(std::vector<const PhraseMatcher*>& out) const {
  for (const auto* sets : {&trap_phrases_, &deferred_phrases_})
    for (const PhraseSet& set : *sets) out.push_back(&set.matcher());
}

void WriteTrapResult(JsonWriter& w, const Trap& t, const AssertedPhrases::Result& r) {
  w.BeginObject();
  WriteHits(w, r, "triggers");
  w.Key("key");
  w.Concat({"trap:", t.phrase});
  w.Key("match");
  w.String(t.match_any ? "any" : "affirmed");
  w.Key("phrase");
  w.String(t.phrase);
  w.Key("triggered");
  w.Bool(r.triggered);
  w.EndObject();
}

void WriteDeferredResult(JsonWriter& w, const std::string& diagnosis, const AssertedPhrases::Result& r) {
  w.BeginObject();
  w.Key("asserted");
  w.Bool(r.triggered);
  w.Key("diagnosis");
  w.String(diagnosis);
  WriteHits(w, r, "asserted");
  w.Key("key");
  w.Concat({"deferred:", diagnosis});
  w.EndObject();
}

std::vector<UnsupportedDrug> FindUnsupportedDrugs(const AnalyzedText& note, const PreparedEncounter& encounter,
                                                  const std::set<std::string>& expected_keys,
                                                  const std::vector<std::string>& allowed_keys, DrugValidator& validator) {
  std::vector<UnsupportedDrug> out;
  std::set<std::string> counted;
  for (const DrugMention& m : note.drugs) {
    // A drug class ("NSAIDs", "PCN") or a drug named as an allergy is not a drug documented as taken.
    if (!ForPatient(m.assertion) || !m.drug_class.empty() || m.in_allergy_context) continue;
    std::string key = ComparisonKey(m);
    if (expected_keys.count(key) || counted.count(key)) continue;
    if (std::find(allowed_keys.begin(), allowed_keys.end(), key) != allowed_keys.end()) continue;
    if (m.phantom) {
      if (encounter.words.count(Lower(m.mention))) continue;  // named in the encounter, just unknown to RxNorm
      Validation v = validator.Validate(m.mention, std::nullopt);
      counted.insert(key);
      std::string reason = v.found ? "\"" + m.mention + "\" is a real drug (" + v.name + ") never named in the encounter"
                                   : "\"" + m.mention + "\" has no good RxNorm match and is not in the ground truth";
      out.push_back({m, v.found ? "unsupported" : "phantom", std::move(reason), std::move(v)});
      continue;
    }
    if (encounter.drug_keys.count(m.key)) continue;
    counted.insert(key);
    out.push_back({m, "unsupported", m.drug + " is never named in the encounter", validator.Validate(m.mention, m.match)});
  }
  return out;
}

void WriteUnsupportedDrug(JsonWriter& w, const UnsupportedDrug& u) {
  w.BeginObject();
  WriteMentionMembers(w, u.mention);  // the mention's members, then these four: the writer sorts them in
  w.Key("key");
  w.Concat({"unsupported_drug:", Lower(u.mention.mention)});
  w.Key("kind");
  w.String(u.kind);
  w.Key("reason");
  w.String(u.reason);
  w.Key("validation");
  u.validation.Write(w);
  w.EndObject();
}

std::vector<CriticalError> InventedPrescriptions(const AnalyzedText& note, const std::vector<UnsupportedDrug>& unsupported) {
  std::vector<CriticalError> out;
  for (const UnsupportedDrug& u : unsupported) {
    const DrugMention& m = u.mention;
    if (!m.action || (*m.action != "start" && *m.action != "increase")) continue;
    std::string name = m.drug.empty() ? m.mention : m.drug;
    Evidence ev = MakeEvidence(note, m.tok_begin, m.tok_end);
    ev.context = SentenceOf(note, m.tok_begin);
    out.push_back({"invented_prescription",
                   name + " is documented as " + (*m.action == "start" ? "started" : "increased") +
                       ", but no such drug was discussed in the encounter",
                   "", std::move(ev)});
  }
  return out;
}

}  // namespace scribe
