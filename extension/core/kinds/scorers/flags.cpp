// flags.cpp — mental-health capture (see flags.h).
#include "flags.h"

#include <algorithm>

namespace scribe {

using nlohmann::json;

MentalFlag ParseMentalFlag(const YAML::Node& n, const SchemaPath& c) {
  if (!n.IsMap()) c.Fail("expected a mapping with flag and keywords");
  CheckKeys(n, c, {"flag", "keywords", "when"});
  MentalFlag f;
  f.flag = std::string(Trim(RequiredString(n, "flag", c)));
  f.keywords = StringList(n["keywords"], c.Key("keywords"));
  f.when = ParseWhen(n, c);
  return f;
}

json MentalFlagJson(const MentalFlag& f) {
  json j = {{"flag", f.flag}, {"keywords", f.keywords}};
  if (f.when != When::kCurrent) j["when"] = WhenName(f.when);
  return j;
}

FlagMatcher::FlagMatcher(const std::vector<MentalFlag>& flags, const Rules& rules) : flags_(flags) {
  for (const MentalFlag& f : flags) {
    std::vector<std::string> phrases{f.flag};
    phrases.insert(phrases.end(), f.keywords.begin(), f.keywords.end());
    phrases_.emplace_back(phrases, rules);
    words_.push_back(PhraseWords(f.flag));
  }
  qualifiers_.insert(rules.assertion.qualifiers.begin(), rules.assertion.qualifiers.end());
}

void FlagMatcher::AddMatchers(std::vector<const PhraseMatcher*>& out) const {
  for (const PhraseSet& set : phrases_) out.push_back(&set.matcher());
}

std::vector<FlagMatcher::Result> FlagMatcher::Score(const AnalyzedText& note, std::vector<CriticalError>& critical,
                                                    const PhraseStarts& starts) const {
  const auto& toks = note.text.tokens;
  std::vector<Result> out;
  for (size_t i = 0; i < flags_.size(); ++i) {
    const auto& fw = words_[i];
    bool flag_has_qualifier = std::any_of(fw.begin(), fw.end(), [&](const std::string& w) { return qualifiers_.count(w) > 0; });
    Result r;
    bool affirmed = false, negated = false;
    std::optional<Evidence> first_negated;
    for (const auto& hit : phrases_[i].Find(note.text, starts)) {
      if (hit.begin > 0 && toks[hit.begin - 1].kind == TokenKind::kWord && qualifiers_.count(toks[hit.begin - 1].norm) &&
          flag_has_qualifier && std::find(fw.begin(), fw.end(), toks[hit.begin - 1].norm) == fw.end())
        continue;
      Evidence e = MakeEvidence(note, hit.begin, hit.end);
      if (Fits(flags_[i].when, e.assertion)) affirmed = true;
      if (e.assertion == Assertion::kNegated) {
        negated = true;
        if (!first_negated) first_negated = e;
      }
      r.evidence.Add(std::move(e));
    }
    r.status = affirmed ? "captured" : negated ? "contradicted" : "missed";
    if (r.status == "contradicted")
      critical.push_back({"contradicted_flag", "the note negates \"" + flags_[i].flag + "\", which the patient has", "",
                          first_negated});
    out.push_back(std::move(r));
  }
  return out;
}

void WriteFlag(JsonWriter& w, const MentalFlag& flag, const FlagMatcher::Result& r) {
  w.BeginObject();
  WriteEvidenceMembers(w, r.evidence);
  w.Key("flag");
  w.String(flag.flag);
  w.Key("key");
  w.Concat({"flag:", flag.flag});
  w.Key("status");
  w.String(r.status);
  w.EndObject();
}

}  // namespace scribe
