// evidence.cpp — spans, critical errors and mention JSON (see evidence.h).
#include "evidence.h"

namespace scribe {

using nlohmann::json;

std::string Slice(const TokenizedText& t, size_t begin, size_t end) {
  if (begin >= end || end > t.tokens.size()) return {};
  return std::string(t.text.substr(t.tokens[begin].byte_begin, t.tokens[end - 1].byte_end - t.tokens[begin].byte_begin));
}

std::string SentenceOf(const AnalyzedText& a, size_t token) {
  uint32_t s = a.text.sentence_of[token];
  std::string text = Slice(a.text, a.text.sentence_begin[s], a.text.sentence_end[s]);
  if (text.size() > 160) text = text.substr(0, 157) + "...";
  return text;
}

Evidence MakeEvidence(const AnalyzedText& a, size_t begin, size_t end) {
  return {Slice(a.text, begin, end), a.text.tokens[begin].char_begin, a.text.tokens[end - 1].char_end,
          AssertionAnalyzer::Resolve(a.assertion_bits, begin, end), {}};
}

json EvidenceJson(const Evidence& e) {
  json j = {{"text", e.text}, {"start_offset", e.start_offset}, {"end_offset", e.end_offset},
            {"assertion", AssertionName(e.assertion)}};
  if (!e.context.empty()) j["context"] = e.context;
  return j;
}

void AddEvidence(json& item, const EvidenceList& list, const char* key) {
  json shown = json::array();
  for (const Evidence& e : list.shown) shown.push_back(EvidenceJson(e));
  item[key] = std::move(shown);
  if (list.more) item[std::string(key) + "_more"] = list.more;
}

json CriticalErrorJson(const CriticalError& c) {
  // key: how a reviewer names this error (scribe_review): the kind and the trial rule's id, or
  // where its evidence starts.
  std::string where = !c.id.empty() ? c.id : c.evidence ? std::to_string(c.evidence->start_offset) : "-";
  json j = {{"kind", c.kind}, {"message", c.message}, {"evidence", c.evidence ? EvidenceJson(*c.evidence) : json(nullptr)},
            {"key", c.kind + ":" + where}};
  if (!c.id.empty()) j["id"] = c.id;
  return j;
}

json DoseJson(const std::optional<Dose>& d) {
  if (!d) return nullptr;
  return {{"value", Round4(d->value)}, {"unit", d->unit}, {"text", d->Text()}};
}

json MentionJson(const DrugMention& m) {
  return {{"mention", m.mention},
          {"drug", m.drug.empty() ? json(nullptr) : json(m.drug)},
          {"rxcui", m.rxcui.empty() ? json(nullptr) : json(m.rxcui)},
          {"match", m.phantom ? "phantom" : std::string(MatchKindName(m.match->kind))},
          {"dose", DoseJson(m.dose)},
          {"frequency", m.frequency.text.empty() ? json(nullptr) : json(m.frequency.text)},
          {"per_day", m.frequency.per_day ? json(Round4(*m.frequency.per_day)) : json(nullptr)},
          {"prn", m.frequency.prn},
          {"route", m.route ? json(*m.route) : json(nullptr)},
          {"action", m.action ? json(*m.action) : json(nullptr)},
          {"assertion", AssertionName(m.assertion)},
          {"start_offset", m.char_begin},
          {"end_offset", m.char_end}};
}

std::string_view WhenName(When w) {
  switch (w) {
    case When::kCurrent: return "current";
    case When::kPast: return "past";
    case When::kAny: return "any";
  }
  return "current";
}

When ParseWhen(const YAML::Node& map, const SchemaPath& path) {
  std::string v = OptionalString(map, "when", path);
  if (v.empty() || v == "current") return When::kCurrent;
  if (v == "past") return When::kPast;
  if (v == "any") return When::kAny;
  path.Key("when").Fail("must be current, past or any, got " + Quote(v));
}

}  // namespace scribe
